#!/usr/bin/env python3
"""The reference implementations of voting-4-hooks.md (§4.3-§4.6), copied verbatim, run on a
batch of hook inputs. Standard library only.

stdin:  {"rule": "plurality" | "borda" | "earliest-vote" | "option-on-ballot" | "assign-first-winner",
         "inputs": [<input_data>, ...]}
stdout: {"outputs": [<output> | {"exception": "<ExceptionType>"}, ...]}
"""

import json
import logging
import sys
from collections import Counter


class PqtOptionOnBallot:  # §4.3
    def eval(self, parameters, input_data, context):
        logging.info("pqt input: {}".format(input_data))

        ui = input_data["user_input"]
        options = ui["subject_spec"]["voting_options_map"]
        choice = ui["vote_data"].get("selected_option")

        if choice not in options:
            return {"qualified": False, "reason": f"option {choice!r} is not on the ballot"}
        return {"qualified": True}


class Plurality:  # §4.4
    def eval(self, parameters, input_data, context):
        logging.info("evaluation input: {}".format(input_data))

        votes = input_data["user_input"]["votes"]
        tally = Counter(v["vote_data"]["selected_option"] for v in votes)
        if not tally:
            return {"winners": [], "tally": {}}

        top = max(tally.values())
        winners = sorted(opt for opt, n in tally.items() if n == top)
        return {"winners": winners, "tally": dict(tally)}


class Borda:  # §4.4, ranked-ballot variant
    def eval(self, parameters, input_data, context):
        ui = input_data["user_input"]
        options = list(ui["subject_spec"]["voting_options_map"].keys())
        n = len(options)
        scores = {opt: 0 for opt in options}

        for v in ui["votes"]:
            for position, opt in enumerate(v["vote_data"]["ranking"]):
                if opt in scores:
                    scores[opt] += n - 1 - position

        top = max(scores.values())
        return {"winners": [o for o, s in scores.items() if s == top], "scores": scores}


class EarliestVote:  # §4.5
    def eval(self, parameters, input_data, context):
        ui = input_data["user_input"]
        tied = set(ui["winners"])
        ballots = sorted(
            (v for v in ui["votes"] if v["vote_data"].get("selected_option") in tied),
            key=lambda v: v["submission_time"],
        )
        return {"winner": ballots[0]["vote_data"]["selected_option"], "rule": "earliest_vote"}


class AssignFirstWinner:  # §4.6
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


RULES = {
    "option-on-ballot": PqtOptionOnBallot,
    "plurality": Plurality,
    "borda": Borda,
    "earliest-vote": EarliestVote,
    "assign-first-winner": AssignFirstWinner,
}


def main():
    req = json.load(sys.stdin)
    rule = RULES[req["rule"]]()
    outputs = []
    for input_data in req["inputs"]:
        try:
            outputs.append(rule.eval({}, input_data, None))
        except Exception as e:
            outputs.append({"exception": type(e).__name__})
    json.dump({"outputs": outputs}, sys.stdout)


if __name__ == "__main__":
    main()
