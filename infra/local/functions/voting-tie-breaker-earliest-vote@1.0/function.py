class AIOSv1PolicyRule:

    def __init__(self, rule_id, settings, parameters):
        self.rule_id = rule_id
        self.settings = settings
        self.parameters = parameters

    def eval(self, parameters, input_data, context):
        ui = input_data["user_input"]
        tied = set(ui["winners"])
        ballots = sorted(
            (v for v in ui["votes"] if v["vote_data"].get("selected_option") in tied),
            key=lambda v: v["submission_time"],
        )
        return {"winner": ballots[0]["vote_data"]["selected_option"], "rule": "earliest_vote"}
