// The voting task list: every task with its status, access type, scheduled time, votes
// (qualified / all), progress to the trigger, rule and live stream; filtered by status.

import { voting } from '../api.js';
import { badge, h, notice, replace, section, table } from '../dom.js';
import { formatTime } from '../format.js';
import { triggerProgress } from '../voting/roster.js';
import { ruleName } from '../voting/tally.js';

const STATUSES = ['all', 'scheduled', 'started', 'complete'];
/** Tasks shown at most, and votes read at most for their counts. */
const LIMIT = 500;
const VOTES_LIMIT = 20000;

export async function render(root, params) {
  const status = STATUSES.includes(params.get('status')) ? params.get('status') : 'all';
  const filter = status === 'all' ? {} : { status };
  const tasks = await voting.query('social_task_core_data', filter, LIMIT);
  const ids = { social_task_id: { $in: tasks.map((t) => t.social_task_id) } };
  const [inputs, votes] = tasks.length === 0 ? [[], []] : await Promise.all([
    voting.query('social_choice_evaluation_input', ids, LIMIT),
    voting.query('votes', ids, VOTES_LIMIT),
  ]);
  const rules = new Map(inputs.map((i) => [i.social_task_id, ruleName(i)]));
  const byTask = new Map();
  for (const v of votes) {
    if (!byTask.has(v.social_task_id)) byTask.set(v.social_task_id, []);
    byTask.get(v.social_task_id).push(v);
  }
  tasks.sort((a, b) => String(b.creation_time).localeCompare(String(a.creation_time)));
  const filterBar = h('nav', { class: 'filters', 'aria-label': 'Filter by status' },
    STATUSES.map((s) => h('a', { href: `#/voting?status=${s}`, 'aria-current': s === status ? 'page' : null }, s)));
  const rows = tasks.map((t) => {
    const tv = byTask.get(t.social_task_id) || [];
    const q = tv.filter((v) => v.qualified === true).length;
    const p = triggerProgress(t, tv);
    return h('tr', { 'data-task': t.social_task_id },
      h('td', {}, h('a', { href: `#/voting/task/${encodeURIComponent(t.social_task_id)}` }, t.social_task_id)),
      h('td', {}, badge(t.status || 'none')),
      h('td', {}, t.social_task_access_type),
      h('td', {}, formatTime(t.scheduled_time)),
      h('td', {}, `${q} / ${tv.length}`),
      h('td', {}, p.target === null ? 'never' : h('span', {}, h('progress', { max: p.target || 1, value: p.current }), ` ${p.current}/${p.target}`)),
      h('td', {}, rules.get(t.social_task_id) || '—'),
      h('td', {}, t.enable_live_streaming ? 'on' : 'off'));
  });
  replace(root, section('Voting tasks', filterBar,
    tasks.length === 0 ? notice(`No ${status === 'all' ? '' : `${status} `}task.`) :
      h('div', { class: 'scroll' }, table(['Task', 'Status', 'Access', 'Scheduled', 'Votes (qualified / all)', 'Trigger', 'Rule', 'Live'], rows, { caption: `${tasks.length} tasks` })),
    tasks.length >= LIMIT ? notice(`Showing the first ${LIMIT} tasks.`) : null,
    votes.length >= VOTES_LIMIT ? notice(`Vote counts read from the first ${VOTES_LIMIT} votes only: open a task for its exact counts.`) : null));
}
