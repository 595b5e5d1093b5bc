// The exchange's task board: tasks in one column per status (xchange §1.2). Pure (no DOM).

/** The statuses of a task, in lifecycle order. */
export const STATUSES = ['pending', 'assigned', 'bidding', 'completed', 'failed', 'rejected'];

/** `[{status, tasks}]`: every status of the lifecycle (empty or not), then any other status seen. */
export function boardColumns(tasks) {
  const columns = new Map(STATUSES.map((s) => [s, []]));
  for (const t of tasks || []) {
    const s = t.task_assignment_status || 'unknown';
    if (!columns.has(s)) columns.set(s, []);
    columns.get(s).push(t);
  }
  return [...columns].map(([status, list]) => ({ status, tasks: list }));
}

/** What a task's lifecycle shows: created, the assignment mode's step, then its outcome. */
export function taskSteps(task) {
  const status = task.task_assignment_status;
  const mode = task.task_assignment_type;
  const steps = [{ step: 'created', time: task.taski_creation_time, done: true }];
  const middle = mode === 'bidding' ? 'bidding' : 'assigned';
  const past = { pending: 0, assigned: 1, bidding: 1, completed: 2, failed: 2, rejected: 2 }[status] ?? 0;
  steps.push({ step: middle, done: past === 1 || (past === 2 && status !== 'rejected'), note: mode === 'bidding' ? task.task_metadata?.bid_job_id ?? null : null });
  // A bidding task's output is Orcade's `bid_winner` task result, which carries its time.
  const outcomeTime = mode === 'bidding' && status === 'completed' ? task.task_output?.created_time ?? null : null;
  steps.push({ step: ['failed', 'rejected'].includes(status) ? status : 'completed', time: outcomeTime, done: past === 2, outcome: status });
  return steps;
}
