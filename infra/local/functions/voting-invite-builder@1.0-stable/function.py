import logging


class AIOSv1PolicyRule:

    def __init__(self, rule_id, settings, parameters):
        self.rule_id = rule_id
        self.settings = settings
        self.parameters = parameters

    def eval(self, parameters, input_data, context):
        logging.info("invite input: {}".format(input_data))

        spec = input_data["user_input"]["subject_spec"]
        return {
            "prompt": f"Please vote: {spec['topic_title']}",
            "ballot_schema": {"selected_option": list(spec["voting_options_map"].keys())},
            "vote_endpoint": self.settings.get("vote_endpoint", "http://voting-intake:8081/submit-vote"),
        }
