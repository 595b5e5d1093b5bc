// A completed task's results: winners, the tie-breaker's output, the post-award payload, the
// rule's counts as sorted bars, instant-runoff rounds with a round slider, the pairwise matrix
// with Schulze's strongest paths, and the Condorcet winner.

import { barChart, PALETTE, withNumbers } from '../charts.js';
import { h, jsonBlock, notice, replace, section, table } from '../dom.js';
import { formatNumber, formatTime } from '../format.js';
import { condorcetWinner, matrixCells, strongestPaths, supportFromVotes } from '../voting/pairwise.js';
import { computeRounds, roundDeltas } from '../voting/rounds.js';
import { optionsOf, resultOf, ruleName, tallyFromVotes, tallyRows } from '../voting/tally.js';

const hasRankings = (votes) => votes.some((v) => Array.isArray(v.vote_data?.ranking));

/** The results sections of `report` (a task's `report_json`), or a note that there is none yet. */
export function results(report, bundle) {
  const result = resultOf(report);
  if (!result) return [section('Results', notice('Not evaluated yet: the results appear here when the trigger holds.'))];
  const options = optionsOf(report.subject_spec || bundle.subject_spec);
  const keys = options.map((o) => o.key);
  const label = (k) => options.find((o) => o.key === k)?.label ?? k;
  const votes = report.votes || [];
  const rule = ruleName(report.evaluation_spec || bundle.evaluation_input);
  const out = [];

  out.push(section('Results',
    h('p', { class: 'winners', 'data-testid': 'winners' }, result.winners.length ? ['Winner', result.winners.length > 1 ? 's' : '', ': ', h('strong', {}, result.winners.map((w) => `${label(w)} (${w})`).join(', '))] : 'No winner (no qualified vote was counted).'),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Rule'), h('dd', {}, rule),
      h('dt', {}, 'Evaluated'), h('dd', {}, formatTime(result.evaluatedAt)),
      h('dt', {}, 'Votes counted'), h('dd', {}, `${votes.length} qualified`, result.ignored ? `, ${result.ignored} ignored by the rule` : ''),
      h('dt', {}, 'Tie-breaker'), h('dd', { 'data-testid': 'tie-breaker' }, result.tieBreaker ? jsonBlock(result.tieBreaker) : 'did not run'),
      h('dt', {}, 'Post-award payload'), h('dd', {}, jsonBlock(result.postAward ?? {})))));

  // Bars of the rule's counts (or a plurality tally counted here, said so).
  let counts = result.counts;
  let countsNote = null;
  if (!counts && !result.rounds && !result.pairwise && votes.some((v) => typeof v.vote_data?.selected_option === 'string')) {
    counts = tallyFromVotes(votes);
    countsNote = notice('The rule\'s output carries no tally: these counts of selected_option were made by the console from the report\'s votes.');
  }
  if (counts) {
    const kind = result.countsKind || 'tally';
    out.push(section(kind === 'scores' ? 'Scores' : 'Tally', countsNote,
      barChart(tallyRows(counts, options, result.winners), { title: kind === 'scores' ? 'Scores' : 'Votes per option', valueName: kind === 'scores' ? 'score' : 'votes', testId: 'tally-bars' })));
  }

  // Instant-runoff rounds.
  let rounds = result.rounds;
  let roundsNote = null;
  if (!rounds && /runoff|irv/i.test(rule) && hasRankings(votes)) {
    rounds = computeRounds(keys, votes).rounds;
    roundsNote = notice('The report carries no rounds: the console counted them from the report\'s votes (instant runoff, simultaneous elimination of the last).');
  }
  if (rounds && rounds.length) out.push(roundsSection(roundDeltas(rounds), label, roundsNote));

  // Pairwise matrix, strongest paths, Condorcet winner.
  let support = result.pairwise;
  let pairNote = null;
  if (!support && hasRankings(votes)) {
    support = supportFromVotes(keys, votes);
    pairNote = notice('The rule\'s output carries no pairwise counts: the console counted them from the report\'s ranked votes.');
  }
  if (support) {
    const paths = result.strongestPaths;
    const showPaths = paths || /schulze/i.test(rule);
    out.push(section('Pairwise', pairNote, matrixTable(keys, support, label),
      h('p', { 'data-testid': 'condorcet' }, (() => { const c = condorcetWinner(keys, support); return c ? ['Condorcet winner: ', h('strong', {}, `${label(c)} (${c})`), ' beats every other option head to head.'] : 'No Condorcet winner: no option beats every other head to head.'; })()),
      showPaths ? [h('h3', {}, 'Schulze strongest paths'), paths ? null : notice('The report carries no strongest paths: computed by the console from the pairwise counts (on margins).'), pathsTable(keys, paths || strongestPaths(keys, support), label)] : null));
  }
  return out;
}

function roundsSection(deltas, label, note) {
  const body = h('div', { class: 'round-view' });
  const output = h('output', { id: 'round-out' });
  const slider = h('input', { type: 'range', min: '1', max: String(deltas.length), value: '1', step: '1', id: 'round-slider', 'aria-label': 'Round', 'data-testid': 'round-slider' });
  const show = () => {
    const d = deltas[Number(slider.value) - 1];
    output.textContent = `Round ${d.round} of ${deltas.length}`;
    const max = Math.max(1, ...deltas.flatMap((x) => x.options.map((o) => o.votes)));
    const bars = h('div', { class: 'bars', role: 'img', 'aria-label': `Round ${d.round}: ${d.options.map((o) => `${label(o.key)} ${o.votes}`).join(', ')}` },
      d.options.map((o, i) => h('div', { class: `bar-row${o.eliminated ? ' eliminated' : ''}` },
        h('span', { class: 'bar-label' }, label(o.key), o.eliminated ? ' ✕ eliminated' : ''),
        h('span', { class: 'bar-track' },
          h('span', { class: 'bar', style: { width: `${(100 * o.carried) / max}%`, background: PALETTE[i % PALETTE.length] } }),
          o.gained > 0 ? h('span', { class: 'bar gained', style: { width: `${(100 * o.gained) / max}%` } }) : null),
        h('span', { class: 'bar-value' }, String(o.votes), o.gained ? ` (${o.gained > 0 ? '+' : ''}${o.gained})` : ''))));
    const numbers = table(['Option', 'Votes', 'Carried', 'Gained', 'Eliminated'],
      d.options.map((o) => [label(o.key), o.votes, o.carried, (o.gained > 0 ? '+' : '') + o.gained, o.eliminated ? 'yes' : '']),
      { caption: `Round ${d.round}` });
    replace(body, withNumbers(bars, numbers),
      h('p', { class: 'round-facts', 'data-testid': 'round-facts' }, `Transferred in: ${d.transferred} · exhausted: ${d.exhausted} (new this round: ${d.newlyExhausted}) · ballots counted: ${d.active}`, d.eliminated.length ? ` · eliminated at the end: ${d.eliminated.map(label).join(', ')}` : ' · final round'));
  };
  slider.addEventListener('input', show);
  show();
  return section('Instant-runoff rounds', note, h('div', { class: 'slider' }, h('label', { for: 'round-slider' }, 'Round '), slider, ' ', output), body,
    h('details', {}, h('summary', {}, 'Every round'), table(['Round', 'Counts', 'Eliminated', 'Transferred', 'Exhausted'],
      deltas.map((d) => [d.round, d.options.map((o) => `${label(o.key)} ${o.votes}`).join(', '), d.eliminated.join(', ') || '—', d.transferred, d.exhausted]))));
}

const SYMBOL = { win: 'W', tie: 'T', lose: 'L' };

function matrixTable(keys, support, label) {
  const cells = matrixCells(keys, support);
  return h('div', { class: 'scroll' }, h('table', { class: 'matrix', 'data-testid': 'pairwise-matrix' },
    h('caption', {}, 'Ballots preferring the row over the column (W win, T tie, L lose)'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'over →'), keys.map((k) => h('th', { scope: 'col' }, label(k))))),
    h('tbody', {}, keys.map((a, i) => h('tr', {}, h('th', { scope: 'row' }, label(a)),
      cells[i].map((c) => c === null ? h('td', { class: 'diag' }, '—') :
        h('td', { class: `cell-${c.outcome}`, title: `${label(c.a)} over ${label(c.b)}: ${c.for} to ${c.against}` }, `${c.for}–${c.against} ${SYMBOL[c.outcome]}`)))))));
}

function pathsTable(keys, paths, label) {
  return h('div', { class: 'scroll' }, h('table', { class: 'matrix', 'data-testid': 'strongest-paths' },
    h('caption', {}, 'Strength of the strongest path from the row to the column (▲ stronger than the reverse, ▼ weaker, = equal)'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'from ↓ to →'), keys.map((k) => h('th', { scope: 'col' }, label(k))))),
    h('tbody', {}, keys.map((a) => h('tr', {}, h('th', { scope: 'row' }, label(a)),
      keys.map((b) => {
        if (a === b) return h('td', { class: 'diag' }, '—');
        const [there, back] = [paths[a]?.[b] ?? 0, paths[b]?.[a] ?? 0];
        const outcome = there > back ? 'win' : there < back ? 'lose' : 'tie';
        return h('td', { class: `cell-${outcome}` }, `${formatNumber(there)} ${{ win: '▲', lose: '▼', tie: '=' }[outcome]}`);
      }))))));
}
