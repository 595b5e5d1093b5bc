// Who has voted on a task, how close it is to its trigger (voting §1.3), and its votes over time.
// Pure (no DOM): the unit tests import this module as the page does.

import { parseTime } from '../format.js';

/** The default `duration` of a public task (voting-2-schema §2.1). */
export const DEFAULT_DURATION = 5;

/**
 * The roster: for a private task each member of `org_ids` (voted or not), then anyone else who
 * voted (a public task's voters, in the order they voted). Each row: `{subject, member, voted,
 * qualified, time, voteId}`.
 */
export function rosterRows(task, votes) {
  const bySubject = new Map();
  for (const v of [...(votes || [])].sort(byTime)) {
    if (!bySubject.has(v.submitter_subject_id)) bySubject.set(v.submitter_subject_id, v);
  }
  const members = task && task.social_task_access_type === 'private' ? task.org_ids || [] : [];
  const row = (subject, member) => {
    const v = bySubject.get(subject);
    return {
      subject,
      member,
      voted: !!v,
      qualified: v ? v.qualified === true : null,
      time: v ? v.submission_time : null,
      voteId: v ? v.vote_id : null,
    };
  };
  const rows = members.map((m) => row(m, true));
  const listed = new Set(members);
  for (const subject of bySubject.keys()) if (!listed.has(subject)) rows.push(row(subject, false));
  return rows;
}

/**
 * Progress to the trigger: `{current, target, ratio, rule}`. Private: members with a qualified
 * vote of `org_ids`; public: qualified votes of `duration`; any other access type never triggers
 * (`target` null).
 */
export function triggerProgress(task, votes) {
  const qualified = (votes || []).filter((v) => v.qualified === true);
  const type = task && task.social_task_access_type;
  if (type === 'private') {
    const members = new Set(task.org_ids || []);
    const done = new Set(qualified.map((v) => v.submitter_subject_id).filter((s) => members.has(s)));
    const target = members.size;
    return { current: done.size, target, ratio: target ? done.size / target : 0, rule: 'members of org_ids with a qualified vote' };
  }
  if (type === 'public') {
    const target = Number.isInteger(task.duration) ? task.duration : DEFAULT_DURATION;
    return { current: qualified.length, target, ratio: target ? Math.min(1, qualified.length / target) : 0, rule: 'qualified votes of duration' };
  }
  return { current: qualified.length, target: null, ratio: 0, rule: `access type ${JSON.stringify(type)} never triggers` };
}

/** Votes over time: one point per vote, `{time (Date), all, qualified}` counted so far. */
export function votesOverTime(votes) {
  let all = 0;
  let qualified = 0;
  return [...(votes || [])]
    .filter((v) => parseTime(v.submission_time))
    .sort(byTime)
    .map((v) => {
      all += 1;
      if (v.qualified === true) qualified += 1;
      return { time: parseTime(v.submission_time), all, qualified };
    });
}

/**
 * The lifecycle the documents show: created (`creation_time`), scheduled (`scheduled_time`),
 * started (`start_time`), first and last vote, evaluated (`end_time`, else the report's
 * `evaluated_at`). A task started before the service recorded `start_time` says so, with no time.
 */
export function lifecycle(task, votes) {
  const status = task && task.status;
  const sorted = [...(votes || [])].sort(byTime);
  const report = (task && task.report_json) || {};
  const reached = (s) => ['started', 'complete'].includes(status) || (s === 'scheduled' && status === 'scheduled');
  return [
    { step: 'created', time: task && task.creation_time, done: true },
    { step: 'scheduled', time: task && task.scheduled_time, done: !!(task && task.scheduled_time) },
    { step: 'started', time: task?.start_time ?? null, done: reached('started'), note: task?.start_time ? undefined : 'start time not recorded (started before the service recorded it)' },
    { step: 'first vote', time: sorted[0]?.submission_time ?? null, done: sorted.length > 0 },
    { step: 'last vote', time: sorted.at(-1)?.submission_time ?? null, done: sorted.length > 1 },
    { step: 'evaluated', time: task?.end_time ?? report.evaluated_at ?? null, done: !!(task?.end_time || report.evaluated_at) },
  ];
}

function byTime(a, b) {
  const ta = parseTime(a.submission_time)?.getTime() ?? 0;
  const tb = parseTime(b.submission_time)?.getTime() ?? 0;
  return ta - tb;
}
