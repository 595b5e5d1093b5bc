// Pairwise (Condorcet) views of ranked ballots: the support matrix, its win/tie/lose cells, the
// Condorcet winner and Schulze's strongest paths (on margins, as the voting rules' `schulze`).
// Pure (no DOM): the unit tests import this module as the page does.

/**
 * `support[a][b]`: ballots that rank `a` above `b` (a truncated ranking puts its ranked options
 * above the unranked ones, which tie), from qualified votes with a valid `vote_data.ranking`.
 */
export function supportFromVotes(optionKeys, votes) {
  const support = Object.fromEntries(optionKeys.map((a) => [a, Object.fromEntries(optionKeys.filter((b) => b !== a).map((b) => [b, 0]))]));
  const known = new Set(optionKeys);
  for (const v of votes || []) {
    const r = v && v.qualified !== false && v.vote_data && v.vote_data.ranking;
    if (!Array.isArray(r) || r.length === 0 || !r.every((k) => known.has(k)) || new Set(r).size !== r.length) continue;
    const rank = new Map(r.map((k, i) => [k, i]));
    for (const a of optionKeys) {
      for (const b of optionKeys) {
        if (a === b) continue;
        const ra = rank.has(a) ? rank.get(a) : Infinity;
        const rb = rank.has(b) ? rank.get(b) : Infinity;
        if (ra < rb) support[a][b] += 1;
      }
    }
  }
  return support;
}

/** The cells of the matrix: row `a`, column `b`: `{for, against, margin, outcome: win|tie|lose}` (null on the diagonal). */
export function matrixCells(optionKeys, support) {
  return optionKeys.map((a) =>
    optionKeys.map((b) => {
      if (a === b) return null;
      const f = support?.[a]?.[b] ?? 0;
      const g = support?.[b]?.[a] ?? 0;
      return { a, b, for: f, against: g, margin: f - g, outcome: f > g ? 'win' : f < g ? 'lose' : 'tie' };
    }),
  );
}

/** The option that beats every other one pairwise, or null. */
export function condorcetWinner(optionKeys, support) {
  return (
    optionKeys.find((a) => optionKeys.every((b) => a === b || (support?.[a]?.[b] ?? 0) > (support?.[b]?.[a] ?? 0))) ?? null
  );
}

/**
 * Schulze's strongest paths on margins: `p[a][b]` is the largest, over paths from `a` to `b`
 * whose every step is a positive margin, of the path's smallest margin (0 with no such path).
 */
export function strongestPaths(optionKeys, support) {
  const margin = (a, b) => (support?.[a]?.[b] ?? 0) - (support?.[b]?.[a] ?? 0);
  const p = Object.fromEntries(optionKeys.map((a) => [a, {}]));
  for (const a of optionKeys) for (const b of optionKeys) if (a !== b) p[a][b] = Math.max(0, margin(a, b));
  for (const k of optionKeys) {
    for (const a of optionKeys) {
      if (a === k) continue;
      for (const b of optionKeys) {
        if (b === a || b === k) continue;
        p[a][b] = Math.max(p[a][b], Math.min(p[a][k], p[k][b]));
      }
    }
  }
  return p;
}

/** Schulze's winners from strongest paths: every `a` with `p[a][b] >= p[b][a]` for all `b`. */
export function schulzeWinners(optionKeys, paths) {
  return optionKeys.filter((a) => optionKeys.every((b) => a === b || paths[a][b] >= paths[b][a])).sort();
}
