// A bid job's bids as table rows (refused bids with their PQT reason, the winner marked), their
// sorting, and a job's progress. Pure (no DOM): the unit tests import this module as the page does.

import { parseTime } from '../format.js';

/** Keys of `bid_data` that are Orcade's own marks, not the bidder's data. */
const MARKS = new Set(['bid_rejected', 'pqt_reason']);

/**
 * `{rows, fields}`: one row per bid `{id, subject, time, refused, reason, winner, data}` in
 * submission order, and the `bid_data` fields holding numbers or strings in any bid (the table's
 * columns), in the order first seen.
 */
export function bidRows(bids) {
  const fields = [];
  const rows = [...(bids || [])]
    .sort((a, b) => (parseTime(a.submission_time)?.getTime() ?? 0) - (parseTime(b.submission_time)?.getTime() ?? 0))
    .map((b) => {
      const data = b.bid_data || {};
      for (const [k, v] of Object.entries(data)) {
        if (!MARKS.has(k) && (typeof v === 'number' || typeof v === 'string') && !fields.includes(k)) fields.push(k);
      }
      return {
        id: b.bid_id,
        subject: b.bid_subject_id,
        time: b.submission_time,
        refused: data.bid_rejected === true,
        reason: data.bid_rejected === true ? String(data.pqt_reason ?? '') : null,
        winner: b.is_winner === true,
        data,
      };
    });
  return { rows, fields };
}

/** Rows sorted by `key` (`subject`, `time`, `status` or a `bid_data` field), `asc` or `desc`; missing values last. */
export function sortBids(rows, key, direction = 'asc') {
  const value = (r) => {
    if (key === 'subject') return r.subject;
    if (key === 'time') return parseTime(r.time)?.getTime() ?? null;
    if (key === 'status') return r.winner ? 0 : r.refused ? 2 : 1;
    return r.data[key] ?? null;
  };
  const sign = direction === 'desc' ? -1 : 1;
  return [...rows].sort((a, b) => {
    const va = value(a);
    const vb = value(b);
    if (va === null || vb === null) return va === null ? (vb === null ? 0 : 1) : -1;
    if (typeof va === 'number' && typeof vb === 'number') return sign * (va - vb);
    return sign * String(va).localeCompare(String(vb));
  });
}

/** A job's roster progress: `{current, target, label, rule}` (open jobs: accepted applicants of `bid_job_max_subjects`). */
export function rosterProgress(job, bids) {
  const roster = job.bid_job_subject_ids || [];
  const bidders = new Set((bids || []).map((b) => b.bid_subject_id));
  if (job.bid_job_mode === 'open') {
    return { current: roster.length, target: job.bid_job_max_subjects ?? null, label: 'accepted applicants', rule: job.bid_job_max_subjects ? 'closes when full or at bid_job_closes_at' : 'closes at bid_job_closes_at' };
  }
  return { current: roster.filter((s) => bidders.has(s)).length, target: roster.length, label: 'roster members with a bid', rule: 'evaluated when every roster member has a bid on file' };
}

/** The winner's subject id of a job's bids, or null. */
export function winnerOf(bids) {
  return (bids || []).find((b) => b.is_winner === true)?.bid_subject_id ?? null;
}

/** A delegate round trip failed when its reply says so (`success: false`, or an `error`). */
export function roundTripFailed(result) {
  const r = result && result.task_result;
  return !r || typeof r !== 'object' || r.success === false || 'error' in r;
}
