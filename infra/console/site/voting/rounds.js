// Instant-runoff rounds: what each round's counts mean against the round before (carried,
// gained, transferred, exhausted), and the rounds themselves counted from ballots when a report
// does not carry them. Pure (no DOM): the unit tests import this module as the page does.

/**
 * Per round, from the rule's `rounds` (`[{counts, eliminated, exhausted}]`, voting rules'
 * `instant-runoff`): for each option still in the race its `votes`, `carried` (its votes of the
 * round before; its votes in the first round), `gained` (votes − carried) and whether it is
 * `eliminated` at the end of this round; `transferred` (the votes of the options eliminated in
 * the round before, moved on or exhausted in this one), `exhausted` (so far) and
 * `newlyExhausted` (this round), and `active` (ballots counted this round).
 */
export function roundDeltas(rounds) {
  const out = [];
  let previous = null;
  for (const [i, round] of (rounds || []).entries()) {
    const counts = round.counts || {};
    const eliminated = new Set(round.eliminated || []);
    const options = Object.entries(counts)
      .map(([key, votes]) => {
        const carried = previous ? previous.counts[key] ?? 0 : votes;
        return { key, votes, carried, gained: votes - carried, eliminated: eliminated.has(key) };
      })
      .sort((a, b) => b.votes - a.votes || (a.key < b.key ? -1 : 1));
    const transferred = previous ? (previous.eliminated || []).reduce((s, k) => s + (previous.counts[k] ?? 0), 0) : 0;
    const exhausted = round.exhausted ?? 0;
    out.push({
      round: i + 1,
      options,
      eliminated: [...eliminated],
      transferred,
      exhausted,
      newlyExhausted: exhausted - (previous ? previous.exhausted ?? 0 : 0),
      active: options.reduce((s, o) => s + o.votes, 0),
    });
    previous = round;
  }
  return out;
}

/**
 * The rounds of instant runoff counted from ranked ballots (`vote_data.ranking`, qualified votes
 * whose ranking is a list of distinct option keys), by the rule of the `instant-runoff` builtin:
 * a strict majority of the ballots counted wins; if every option left has the same count they all
 * win; else every option with the fewest votes is eliminated at once. Options nobody ranks first
 * are eliminated together in the first round. Answers `{rounds, winners}` in the builtin's shape.
 */
export function computeRounds(optionKeys, votes) {
  const known = new Set(optionKeys);
  const ballots = [];
  for (const v of votes || []) {
    const r = v && v.qualified !== false && v.vote_data && v.vote_data.ranking;
    if (Array.isArray(r) && r.length > 0 && r.every((k) => known.has(k)) && new Set(r).size === r.length) ballots.push(r);
  }
  const rounds = [];
  if (ballots.length === 0) return { rounds, winners: [] };
  const inRace = new Set(optionKeys);
  for (;;) {
    const counts = Object.fromEntries(optionKeys.filter((k) => inRace.has(k)).map((k) => [k, 0]));
    let exhausted = 0;
    for (const b of ballots) {
      const top = b.find((k) => inRace.has(k));
      if (top === undefined) exhausted += 1;
      else counts[top] += 1;
    }
    const counted = ballots.length - exhausted;
    const values = Object.values(counts);
    const max = Math.max(...values);
    const min = Math.min(...values);
    const majority = Object.keys(counts).filter((k) => counts[k] * 2 > counted);
    if (majority.length === 1 || max === min || values.length <= 1) {
      rounds.push({ counts, eliminated: [], exhausted });
      const winners = majority.length === 1 ? majority : counted > 0 ? Object.keys(counts).filter((k) => counts[k] === max) : [];
      return { rounds, winners: winners.sort() };
    }
    const out = Object.keys(counts).filter((k) => counts[k] === min).sort();
    rounds.push({ counts, eliminated: out, exhausted });
    out.forEach((k) => inRace.delete(k));
  }
}
