// Orcade's bid jobs: name, mode, status, roster, bids, time left to `bid_job_closes_at`, winner.

import { orcade } from '../api.js';
import { badge, h, notice, replace, section, table } from '../dom.js';
import { formatDuration, nameOf, parseTime } from '../format.js';

export async function render(root) {
  const [jobs, bids] = await Promise.all([orcade.jobs({}), orcade.allBids({}, 10000)]);
  const byJob = new Map();
  for (const b of bids) {
    if (!byJob.has(b.bid_job_id)) byJob.set(b.bid_job_id, []);
    byJob.get(b.bid_job_id).push(b);
  }
  jobs.sort((a, b) => String(b.bid_job_created_time).localeCompare(String(a.bid_job_created_time)));
  const now = Date.now();
  const rows = jobs.map((j) => {
    const jb = byJob.get(j.bid_job_id) || [];
    const refused = jb.filter((b) => b.bid_data?.bid_rejected === true).length;
    const closes = parseTime(j.bid_job_closes_at);
    const winner = jb.find((b) => b.is_winner === true)?.bid_subject_id;
    return h('tr', { 'data-job': j.bid_job_id },
      h('td', {}, h('a', { href: `#/orcade/job/${encodeURIComponent(j.bid_job_id)}` }, nameOf(j.bid_job_name, j.bid_job_id))),
      h('td', {}, j.bid_job_mode),
      h('td', {}, badge(j.bid_job_status)),
      h('td', {}, `${(j.bid_job_subject_ids || []).length}${j.bid_job_max_subjects ? ` of ${j.bid_job_max_subjects}` : ''}`),
      h('td', {}, `${jb.length}${refused ? ` (${refused} refused)` : ''}`),
      h('td', {}, closes ? (j.bid_job_status === 'closed' ? 'closed' : formatDuration((closes.getTime() - now) / 1000)) : 'no time limit'),
      h('td', {}, winner ? `★ ${winner}` : '—'));
  });
  replace(root, section('Bid jobs',
    jobs.length === 0 ? notice('No bid job.') :
      h('div', { class: 'scroll' }, table(['Job', 'Mode', 'Status', 'Roster', 'Bids', 'Time left', 'Winner'], rows, { caption: `${jobs.length} jobs` }))));
}
