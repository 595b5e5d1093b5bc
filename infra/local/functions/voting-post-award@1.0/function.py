class AIOSv1PolicyRule:

    def __init__(self, rule_id, settings, parameters):
        self.rule_id = rule_id
        self.settings = settings
        self.parameters = parameters

    def eval(self, parameters, input_data, context):
        ui = input_data["user_input"]
        winners = ui["winners"]
        if not winners:
            return {"decision": "none", "reason": "no qualified votes"}
        return {
            "decision": "assigned",
            "assigned_to": winners[0],
            "goal": ui["task"].get("goal_data", {}),
        }
