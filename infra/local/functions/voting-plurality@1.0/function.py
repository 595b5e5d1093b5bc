import logging
from collections import Counter


class AIOSv1PolicyRule:

    def __init__(self, rule_id, settings, parameters):
        self.rule_id = rule_id
        self.settings = settings
        self.parameters = parameters

    def eval(self, parameters, input_data, context):
        logging.info("evaluation input: {}".format(input_data))

        votes = input_data["user_input"]["votes"]
        tally = Counter(v["vote_data"]["selected_option"] for v in votes)
        if not tally:
            return {"winners": [], "tally": {}}

        top = max(tally.values())
        winners = sorted(opt for opt, n in tally.items() if n == top)
        return {"winners": winners, "tally": dict(tally)}
