// One bid job: roster progress, the bids (sortable; refused bids with their PQT reason; the
// winner marked), the evaluator's output, every delegate round trip (failures highlighted), and
// its timeline from creation to `bid_winner`.

import { orcade } from '../api.js';
import { gauge, timeline } from '../charts.js';
import { badge, h, jsonBlock, notice, replace, section, table } from '../dom.js';
import { csvButton, jsonButton } from '../download.js';
import { formatTime, nameOf, parseTime } from '../format.js';
import { bidRows, rosterProgress, roundTripFailed, sortBids, winnerOf } from '../orcade/bids.js';

export async function render(root, params, route) {
  const id = route[0];
  const [job, bids, results] = await Promise.all([orcade.job(id), orcade.bids(id), orcade.taskResults(id)]);
  const { rows, fields } = bidRows(bids);
  const winner = winnerOf(bids);
  const winnerResult = results.find((r) => r.task_type === 'bid_winner');
  const progress = rosterProgress(job, bids);
  let sort = { key: 'time', direction: 'asc' };
  const bidsBox = h('div', { class: 'scroll' });

  const drawBids = () => {
    const columns = [['status', 'Status'], ['subject', 'Subject'], ...fields.map((f) => [f, f]), ['time', 'Submitted']];
    const header = h('tr', {}, columns.map(([key, title]) => {
      const active = sort.key === key;
      return h('th', { scope: 'col', 'aria-sort': active ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none' },
        h('button', { type: 'button', class: 'sort', 'data-sort': key, onclick: () => { sort = { key, direction: active && sort.direction === 'asc' ? 'desc' : 'asc' }; drawBids(); } },
          title, active ? (sort.direction === 'asc' ? ' ▲' : ' ▼') : ''));
    }), h('th', { scope: 'col' }, 'PQT reason'));
    const body = sortBids(rows, sort.key, sort.direction).map((r) =>
      h('tr', { class: r.winner ? 'winner' : r.refused ? 'refused' : '', 'data-subject': r.subject },
        h('td', {}, r.winner ? badge('★ winner', 'winner') : r.refused ? badge('refused', 'refused') : badge('accepted', 'accepted')),
        h('td', {}, r.subject),
        fields.map((f) => h('td', {}, r.data[f] === undefined ? '—' : String(r.data[f]))),
        h('td', {}, formatTime(r.time)),
        h('td', {}, r.reason ?? '')));
    replace(bidsBox, rows.length === 0 ? notice('No bid yet.') :
      h('table', { class: 'data bids', 'data-testid': 'bids-table' }, h('caption', {}, `${rows.length} bids, ${rows.filter((r) => r.refused).length} refused by the PQT`), h('thead', {}, header), h('tbody', {}, body)));
  };
  drawBids();

  const sortedResults = [...results].sort((a, b) => String(a.created_time).localeCompare(String(b.created_time)));
  const steps = [
    { step: 'created', time: job.bid_job_created_time, done: true },
    ...sortedResults.filter((r) => r.task_type === 'bid_request').slice(0, 1).map((r) => ({ step: 'first bid_request', time: r.created_time, done: true })),
    { step: 'first bid', time: rows[0]?.time ?? null, done: rows.length > 0 },
    ...(job.bid_job_closes_at ? [{ step: 'closes at', time: job.bid_job_closes_at, done: Date.now() >= (parseTime(job.bid_job_closes_at)?.getTime() ?? 0) }] : []),
    { step: 'closed', time: null, done: job.bid_job_status === 'closed', note: 'closing time not recorded' },
    { step: 'bid_winner', time: winnerResult?.created_time ?? null, done: !!winnerResult },
  ];

  replace(root,
    h('header', { class: 'task-head' },
      h('p', { class: 'crumbs' }, h('a', { href: '#/orcade' }, 'Bid jobs'), ' › ', id),
      h('h1', {}, nameOf(job.bid_job_name, id)),
      h('p', { class: 'meta' }, badge(job.bid_job_status), ` ${job.bid_job_mode} · evaluator ${job.bid_job_evaluator_id} · PQT ${job.bid_job_pqt_id || 'none'} · creator ${job.bid_job_creator_id}`),
      h('p', { 'data-testid': 'job-winner' }, winner ? ['Winner: ', h('strong', {}, `★ ${winner}`)] : 'No winner yet.')),
    section('Timeline', timeline(steps, { testId: 'job-timeline' })),
    section('Roster', gauge(progress, { label: `Roster (${progress.label})`, testId: 'roster-gauge' }),
      table(['Subject', 'Bid'], (job.bid_job_subject_ids || []).map((s) => {
        const r = rows.find((x) => x.subject === s);
        return [s, r ? (r.refused ? 'refused' : r.winner ? '★ winner' : 'bid') : 'not yet'];
      }), { caption: 'Roster' })),
    section('Bids', bidsBox, h('p', { class: 'downloads' },
      csvButton('Bids (CSV)', `${id}-bids.csv`, () => ({ columns: ['bid_id', 'bid_subject_id', 'is_winner', 'submission_time', 'bid_data'], rows: bids.map((b) => [b.bid_id, b.bid_subject_id, b.is_winner, b.submission_time, b.bid_data]) })),
      ' ', jsonButton('Job, bids and round trips (JSON)', `${id}.json`, () => ({ job, bids, task_results: results })))),
    section('Evaluator output', winnerResult?.evaluator_output ? jsonBlock(winnerResult.evaluator_output) : notice(job.bid_job_status === 'closed' ? 'No evaluator output on file (no bid_winner round trip: no valid bid, or not yet delivered).' : 'Not evaluated yet.')),
    section('Delegate round trips', sortedResults.length === 0 ? notice('No round trip yet.') :
      h('div', { class: 'scroll' }, table(['When', 'Type', 'Subject', 'Outcome', 'Reply'], sortedResults.map((r) => {
        const failed = roundTripFailed(r);
        return h('tr', { class: failed ? 'failed' : '' }, h('td', {}, formatTime(r.created_time)), h('td', {}, r.task_type), h('td', {}, r.bid_subject_id),
          h('td', {}, failed ? badge('failed', 'failed') : badge('ok', 'ok')), h('td', {}, h('code', {}, JSON.stringify(r.task_result))));
      }), { className: 'data round-trips' }))));
}
