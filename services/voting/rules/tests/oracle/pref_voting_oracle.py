#!/usr/bin/env python3
"""pref_voting oracle for agora-voting-rules' differential tests and benchmark.

Reads one JSON request on stdin, writes one JSON answer on stdout.

Winner sets (differential tests):
    {"mode": "winners", "rule": R, "profiles": [{"n": 5, "rankings": [[0, 2, 1], ...]}, ...]}
    -> {"winners": [[...], ...], "seconds": <time spent in rule calls>}
  R is one of plurality, borda, instant-runoff, copeland, schulze. For plurality a profile
  carries "choices": [0, 3, ...] instead of "rankings". Candidates are 0..n-1. A profile may
  carry "weights": [w, ...] (positive integers, one per ranking or choice; absent: all 1):
  identical ballots are aggregated into pref_voting's `rcounts` by summing their weights, so a
  ballot of weight w counts as w voters.

  A profile whose rankings are all complete is a pref_voting `Profile`. A profile with a truncated
  ranking is a `ProfileWithTies` (unranked candidates tied at the bottom), and the rule is the
  pref_voting function whose definition matches agora's on truncated ballots:
    borda          -> borda_for_profile_with_ties(..., borda_scores=domination_borda_scores)
                      (agora: n-1-position points, unranked get nothing = number of candidates
                      strictly below; pref_voting's default for truncated ballots is the
                      *symmetric* Borda score, which differs on purpose)
    instant-runoff -> instant_runoff (simultaneous elimination of all last-placed candidates)
    copeland       -> copeland after use_extended_strict_preference()
    schulze        -> beat_path after use_extended_strict_preference()

Benchmark:
    {"mode": "bench", "n": 5, "rankings": [...], "weights": [...], "approvals": [...],
     "scores": [[[cand, score], ...], ...], "rules": [...]}
    -> {"results": {rule: {"seconds": t_rule_call, "build_seconds": t_profile_construction,
                           "count_seconds": t_pairwise_tally (copeland, schulze)}}}
  Only the rule call is timed in "seconds"; every rule is first called once on a small profile
  so that numba compilation is not timed. Copeland and Schulze read the pairwise tally that the
  Profile constructor computes, so their "count_seconds" times that computation separately.

Exit status 3 (and a message on stderr) when pref_voting cannot be imported.
"""

import json
import sys
import time
from collections import Counter

try:
    import pref_voting  # noqa: F401
    from pref_voting.c1_methods import copeland
    from pref_voting.grade_methods import approval, score_voting
    from pref_voting.grade_profiles import GradeProfile
    from pref_voting.iterative_methods import instant_runoff
    from pref_voting.margin_based_methods import beat_path
    from pref_voting.profiles import Profile, _support
    from pref_voting.profiles_with_ties import ProfileWithTies
    from pref_voting.scoring_methods import (
        borda,
        borda_for_profile_with_ties,
        domination_borda_scores,
        plurality,
    )
except Exception as e:  # ImportError, or a broken install
    sys.stderr.write(
        "pref_voting is not available in {} ({}: {}). Run the test script, which creates "
        "/work/main/.venv with `pip install pref_voting==1.18.2` and exports AGORA_PYTHON.\n".format(
            sys.executable, type(e).__name__, e
        )
    )
    sys.exit(3)


def aggregate(rankings, weights=None):
    counts = Counter()
    for i, r in enumerate(rankings):
        counts[tuple(r)] += 1 if weights is None else int(weights[i])
    types = list(counts.keys())
    return types, [counts[t] for t in types]


def build(n, rankings, extended, weights=None):
    types, rcounts = aggregate(rankings, weights)
    if all(len(t) == n for t in types):
        return Profile([list(t) for t in types], rcounts=rcounts), False
    prof = ProfileWithTies(
        [{c: i + 1 for i, c in enumerate(t)} for t in types],
        rcounts=rcounts,
        candidates=list(range(n)),
    )
    if extended:
        prof.use_extended_strict_preference()
    return prof, True


def complete_from_choice(n, c):
    return [c] + [x for x in range(n) if x != c]


def winners_of(rule, p):
    n = p["n"]
    if rule == "plurality":
        types, rcounts = aggregate([complete_from_choice(n, c) for c in p["choices"]], p.get("weights"))
        prof = Profile([list(t) for t in types], rcounts=rcounts)
        t0 = time.perf_counter()
        return plurality(prof), time.perf_counter() - t0
    prof, truncated = build(n, p["rankings"], extended=rule in ("copeland", "schulze"), weights=p.get("weights"))
    t0 = time.perf_counter()
    if rule == "borda":
        w = (
            borda_for_profile_with_ties(prof, borda_scores=domination_borda_scores)
            if truncated
            else borda(prof)
        )
    elif rule == "instant-runoff":
        w = instant_runoff(prof)
    elif rule == "copeland":
        w = copeland(prof)
    elif rule == "schulze":
        w = beat_path(prof)
    else:
        raise ValueError("unknown rule " + rule)
    return w, time.perf_counter() - t0


def winners_mode(req):
    out, total = [], 0.0
    for p in req["profiles"]:
        w, t = winners_of(req["rule"], p)
        total += t
        out.append(sorted(int(c) for c in w))
    return {"winners": out, "seconds": total}


def pairwise_tally(prof):
    """What Profile.__init__ does to fill prof._tally."""
    return [
        [_support(prof._ranks, prof._rcounts, c1, c2) for c2 in prof.candidates]
        for c1 in prof.candidates
    ]


def bench_mode(req):
    n = req["n"]
    rankings = req["rankings"]
    rules = req["rules"]
    results = {}

    # Warm-up on a small profile (numba compiles on first call).
    small = Profile([[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1]])
    for f in (plurality, borda, instant_runoff, copeland, beat_path, pairwise_tally):
        f(small)
    gsmall = GradeProfile([{0: 1}, {1: 1, 2: 1}], [0, 1], candidates=[0, 1, 2])
    approval(gsmall)
    score_voting(gsmall)

    t0 = time.perf_counter()
    prof = Profile(rankings)
    prof_build = time.perf_counter() - t0

    def timed(f, *args, **kw):
        t = time.perf_counter()
        f(*args, **kw)
        return time.perf_counter() - t

    for rule in rules:
        try:
            if rule in ("plurality", "borda", "instant-runoff", "copeland", "schulze"):
                f = {
                    "plurality": plurality,
                    "borda": borda,
                    "instant-runoff": instant_runoff,
                    "copeland": copeland,
                    "schulze": beat_path,
                }[rule]
                r = {"seconds": timed(f, prof), "build_seconds": prof_build}
                if rule in ("copeland", "schulze"):
                    # The Profile constructor counts the pairwise tally these rules read; time
                    # that counting (the constructor's own numba kernel) as part of the rule.
                    r["count_seconds"] = timed(pairwise_tally, prof)
                results[rule] = r
            elif rule == "weighted-plurality":
                t = time.perf_counter()
                wprof = Profile(rankings, rcounts=req["weights"])
                b = time.perf_counter() - t
                results[rule] = {"seconds": timed(plurality, wprof), "build_seconds": b}
            elif rule == "approval":
                t = time.perf_counter()
                gp = GradeProfile(
                    [{c: 1 for c in a} for a in req["approvals"]], [0, 1], candidates=list(range(n))
                )
                b = time.perf_counter() - t
                results[rule] = {"seconds": timed(approval, gp), "build_seconds": b}
            elif rule == "score":
                t = time.perf_counter()
                gp = GradeProfile(
                    [{c: s for c, s in b} for b in req["scores"]],
                    list(range(0, 11)),
                    candidates=list(range(n)),
                )
                b = time.perf_counter() - t
                results[rule] = {"seconds": timed(score_voting, gp), "build_seconds": b}
            else:
                results[rule] = {"error": "no pref_voting counterpart"}
        except Exception as e:  # report, do not abort the whole table
            results[rule] = {"error": "{}: {}".format(type(e).__name__, e)}
    return {"results": results, "version": getattr(pref_voting, "__version__", "?")}


def main():
    req = json.load(sys.stdin)
    mode = req.get("mode")
    if mode == "winners":
        ans = winners_mode(req)
    elif mode == "bench":
        ans = bench_mode(req)
    else:
        raise SystemExit("unknown mode {!r}".format(mode))
    json.dump(ans, sys.stdout)


if __name__ == "__main__":
    main()
