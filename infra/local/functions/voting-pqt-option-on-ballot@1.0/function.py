import logging


class AIOSv1PolicyRule:

    def __init__(self, rule_id, settings, parameters):
        self.rule_id = rule_id
        self.settings = settings
        self.parameters = parameters

    def eval(self, parameters, input_data, context):
        logging.info("pqt input: {}".format(input_data))

        ui = input_data["user_input"]
        options = ui["subject_spec"]["voting_options_map"]
        choice = ui["vote_data"].get("selected_option")

        if choice not in options:
            return {"qualified": False, "reason": f"option {choice!r} is not on the ballot"}
        return {"qualified": True}
