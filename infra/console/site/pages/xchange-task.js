// One exchange task: its lifecycle, the chosen subject, its output or error, and in bidding
// mode the Orcade job it opened (with that job's bids and winner).

import { orcade, xchange } from '../api.js';
import { timeline } from '../charts.js';
import { badge, h, jsonBlock, notice, replace, section, table } from '../dom.js';
import { nameOf } from '../format.js';
import { taskSteps } from '../xchange/board.js';

/**
 * The subject a task went to: `task_metadata.assigned_subject_id` (direct, function and open
 * mode, written when it is chosen), else in bidding mode the job's winning bidder.
 */
function chosenSubject(task, bids) {
  const assigned = task.task_metadata?.assigned_subject_id;
  if (assigned) return assigned;
  if (task.task_assignment_type === 'bidding') return bids?.find((b) => b.is_winner)?.bid_subject_id ?? null;
  if (task.task_assignment_type === 'direct') return task.task_metadata?.task_assignment?.subject_id ?? null;
  return null;
}

export async function render(root, params, route) {
  const id = route[0];
  const task = await xchange.task(id);
  const jobId = task.task_metadata?.bid_job_id;
  let job = null;
  let bids = null;
  let jobError = null;
  if (jobId) {
    try {
      [job, bids] = await Promise.all([orcade.job(jobId), orcade.bids(jobId)]);
    } catch (e) {
      jobError = e.message;
    }
  }
  const output = task.task_output || {};
  const failed = ['failed', 'rejected'].includes(task.task_assignment_status);
  const subject = chosenSubject(task, bids);
  replace(root,
    h('header', { class: 'task-head' },
      h('p', { class: 'crumbs' }, h('a', { href: '#/xchange' }, 'Exchange tasks'), ' › ', id),
      h('h1', {}, id),
      h('p', { class: 'meta' }, badge(task.task_assignment_status), ` ${task.task_assignment_type} mode`)),
    section('Lifecycle', timeline(taskSteps(task), { testId: 'xchange-timeline' })),
    section('Assignment',
      h('p', { 'data-testid': 'chosen-subject' }, subject ? ['Chosen subject: ', h('strong', {}, subject)] : 'No subject chosen yet (or the documents do not name it).'),
      h('h3', {}, 'Assignment parameters'), jsonBlock(task.task_metadata?.task_assignment ?? {})),
    task.task_assignment_type === 'bidding' ? section('Bid job',
      !jobId ? notice('No bid job opened yet.') : jobError ? notice(`The bid job ${jobId} could not be read: ${jobError}`, 'error') :
        h('div', { 'data-testid': 'xchange-job' },
          h('p', {}, h('a', { href: `#/orcade/job/${encodeURIComponent(jobId)}` }, nameOf(job.bid_job_name, jobId)), ` · mode ${job.bid_job_mode} · status `, badge(job.bid_job_status)),
          table(['Subject', 'Bid', 'Status'], (bids || []).map((b) => [b.bid_subject_id, JSON.stringify(b.bid_data), b.is_winner ? '★ winner' : b.bid_data?.bid_rejected ? `refused: ${b.bid_data.pqt_reason ?? ''}` : 'accepted']), { caption: `${(bids || []).length} bids` }))) : null,
    section(failed ? 'Error' : 'Output', failed ? h('p', { class: 'error', role: 'alert' }, String(output.error ?? 'no error recorded')) : Object.keys(output).length ? jsonBlock(output) : notice('No output yet.')),
    section('Task data', jsonBlock(task.task_data ?? {})));
}
