// A choice rule's counts as rows to draw and list, and what a report says about its result.
// Pure (no DOM): the unit tests import this module as the page does.

/** The options of a subject spec: `[{key, label}]` in creation order. */
export function optionsOf(subjectSpec) {
  const map = (subjectSpec && subjectSpec.voting_options_map) || {};
  return Object.entries(map).map(([key, label]) => ({ key, label: typeof label === 'string' ? label : JSON.stringify(label) }));
}

/**
 * Counts (`{option: number}`, a tally or scores) as rows sorted by value, highest first, ties by
 * key; every option of the ballot is listed (0 when it has no count); `share` is the percentage
 * of the total; `winner` marks the report's winners.
 */
export function tallyRows(counts, options = [], winners = []) {
  const values = { ...Object.fromEntries(options.map((o) => [o.key, 0])), ...(counts || {}) };
  const labels = Object.fromEntries(options.map((o) => [o.key, o.label]));
  const total = Object.values(values).reduce((s, v) => s + (typeof v === 'number' ? v : 0), 0);
  return Object.entries(values)
    .map(([key, value]) => ({
      key,
      label: labels[key] ?? key,
      value: typeof value === 'number' ? value : Number(value) || 0,
      share: total > 0 ? (100 * (Number(value) || 0)) / total : 0,
      winner: winners.includes(key),
    }))
    .sort((a, b) => b.value - a.value || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** The rule of an evaluation input: `plurality` for a builtin, else its function or workflow id. */
export function ruleName(evaluationInput) {
  const spec = evaluationInput && evaluationInput.choice_evaluation;
  if (!spec || typeof spec !== 'object') return '—';
  return spec.name || spec.function_id || spec.workflow_id || spec.url || spec.mode || '—';
}

/**
 * What a report says of its result: winners, the choice rule's output and which kind of counts it
 * carries (`tally` or `scores`), the IRV rounds and pairwise matrices when it has them, the
 * tie-breaker's output (when it ran), the post-award payload.
 */
export function resultOf(report) {
  if (!report || !report.evaluated_at) return null;
  const outputs = report.dsl_outputs || {};
  const choice = outputs.choice_evaluation_dsl || {};
  return {
    winners: report.winners || [],
    choice,
    counts: choice.tally || choice.scores || null,
    countsKind: choice.tally ? 'tally' : choice.scores ? 'scores' : null,
    rounds: Array.isArray(choice.rounds) ? choice.rounds : null,
    pairwise: choice.pairwise || null,
    strongestPaths: choice.strongest_paths || null,
    ignored: choice.ignored,
    tieBreaker: outputs.tie_breaker_dsl || null,
    postAward: report.post_award_payload ?? outputs.post_awarding_dsl ?? null,
    evaluatedAt: report.evaluated_at,
  };
}

/**
 * A plurality tally counted from votes (`vote_data.selected_option`, qualified only), for a rule
 * whose output carries no counts: the console says it counted them itself.
 */
export function tallyFromVotes(votes) {
  const counts = {};
  for (const v of votes || []) {
    const option = v && v.qualified !== false && v.vote_data && v.vote_data.selected_option;
    if (typeof option === 'string') counts[option] = (counts[option] || 0) + 1;
  }
  return counts;
}
