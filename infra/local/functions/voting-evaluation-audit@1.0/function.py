"""A second DSL module for choice evaluation: passes on the output of the module named in
settings["source"] (default: the last one run) and adds an audit of what was counted."""


class AIOSv1PolicyRule:

    def __init__(self, rule_id, settings, parameters):
        self.rule_id = rule_id
        self.settings = settings
        self.parameters = parameters

    def eval(self, parameters, input_data, context):
        previous = input_data.get("previous_outputs", {})
        source = self.settings.get("source") or (list(previous)[-1] if previous else None)
        result = dict(previous.get(source, {}))
        result["audit"] = {
            "source": source,
            "modules_run": list(previous),
            "votes_counted": len(input_data["user_input"].get("votes", [])),
            "auditor": self.rule_id,
        }
        return result
