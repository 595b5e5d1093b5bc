// A voting task: its lifecycle, the trigger gauge, the roster, votes over time (updated over the
// live stream when the task streams live, else polled, with a pause button), its results once
// evaluated, and the audit (every vote, the raw report) with downloads.

import { voting } from '../api.js';
import { gauge, timeline, votesChart } from '../charts.js';
import { badge, h, jsonBlock, notice, replace, section, table } from '../dom.js';
import { csvButton, jsonButton } from '../download.js';
import { formatTime } from '../format.js';
import { TaskFollower } from '../live.js';
import { lifecycle, rosterRows, triggerProgress, votesOverTime } from '../voting/roster.js';
import { ruleName } from '../voting/tally.js';
import { results } from './voting-results.js';

export async function render(root, params, route) {
  const id = route[0];
  const first = await voting.bundle(id);
  let bundle = first;
  let shownReport = null;

  const state = h('span', { class: 'live-state', 'data-testid': 'live-state', role: 'status' }, '');
  const pauseButton = h('button', { type: 'button', 'data-testid': 'pause', 'aria-pressed': 'false' }, 'Pause updates');
  const head = h('header', { class: 'task-head' });
  const overview = h('div', { class: 'overview' });
  const resultsBox = h('div', { class: 'results' });
  const audit = h('div', { class: 'audit' });
  replace(root, head, overview, resultsBox, audit);

  const draw = (b) => {
    bundle = b;
    const task = b.task || {};
    const votes = b.votes || [];
    const spec = b.subject_spec || {};
    replace(head,
      h('p', { class: 'crumbs' }, h('a', { href: '#/voting' }, 'Voting tasks'), ' › ', task.social_task_id),
      h('h1', {}, spec.topic_title || task.social_task_id),
      h('p', {}, spec.topic_description || ''),
      h('p', { class: 'meta' }, badge(task.status || 'none'), ` ${task.social_task_access_type} · rule ${ruleName(b.evaluation_input)} · live stream ${task.enable_live_streaming ? 'on' : 'off'} · `, state, ' ', pauseButton));
    const progress = triggerProgress(task, votes);
    const roster = rosterRows(task, votes);
    replace(overview,
      section('Lifecycle', timeline(lifecycle(task, votes), { testId: 'timeline' })),
      section('Trigger', gauge(progress, { testId: 'trigger-gauge' })),
      section('Roster',
        roster.length === 0 ? notice('No vote yet.') :
          table(['Subject', 'Member', 'Voted', 'Qualified', 'When'],
            roster.map((r) => h('tr', { 'data-subject': r.subject, class: r.voted ? (r.qualified ? 'qualified' : 'disqualified') : 'waiting' },
              h('td', {}, r.subject), h('td', {}, r.member ? 'yes' : 'no'), h('td', {}, r.voted ? 'voted' : 'not yet'),
              h('td', {}, r.voted ? (r.qualified ? 'qualified' : 'not qualified') : '—'), h('td', {}, formatTime(r.time)))),
            { caption: `${roster.filter((r) => r.voted).length} of ${roster.length} voted`, className: 'data roster' })),
      section('Votes over time', votesChart(votesOverTime(votes), { testId: 'votes-chart' })));
    const report = task.report_json || {};
    if (report.evaluated_at !== shownReport) {
      shownReport = report.evaluated_at;
      replace(resultsBox, results(report, b));
    }
    replace(audit, section('Audit',
      h('p', { class: 'downloads' },
        csvButton('Votes (CSV)', `${task.social_task_id}-votes.csv`, () => ({
          columns: ['vote_id', 'submitter_subject_id', 'qualified', 'submission_time', 'vote_data'],
          rows: (bundle.votes || []).map((v) => [v.vote_id, v.submitter_subject_id, v.qualified, v.submission_time, v.vote_data]),
        })),
        ' ', jsonButton('Task bundle (JSON)', `${task.social_task_id}-bundle.json`, () => bundle),
        ' ', jsonButton('Report (JSON)', `${task.social_task_id}-report.json`, () => bundle.task?.report_json ?? {})),
      h('h3', {}, 'Every vote (qualified or not)'),
      votes.length === 0 ? notice('No vote yet.') :
        h('div', { class: 'scroll' }, table(['Vote', 'Subject', 'Qualified', 'Submitted', 'Ballot'],
          votes.map((v) => [v.vote_id, v.submitter_subject_id, v.qualified ? 'yes' : 'no', formatTime(v.submission_time), JSON.stringify(v.vote_data)]), { className: 'data votes' })),
      h('h3', {}, 'Raw report, with each hook\'s output'),
      Object.keys(report).length ? jsonBlock(report) : notice('No report yet.')));
    if (task.status === 'complete') follower.finished();
  };

  const follower = new TaskFollower(id, {
    live: first.task?.enable_live_streaming === true,
    onUpdate: draw,
    onState: (s) => {
      state.textContent = `${s.mode === 'live' ? 'Live' : 'Polling'}: ${s.text}`;
      pauseButton.textContent = s.paused ? 'Resume updates' : 'Pause updates';
      pauseButton.setAttribute('aria-pressed', String(s.paused));
    },
  });
  pauseButton.addEventListener('click', () => (follower.paused ? follower.resume() : follower.pause()));
  draw(first);
  if (first.task?.status !== 'complete') follower.start();
  else state.textContent = 'Complete: no more updates.';
  return () => follower.stop();
}
