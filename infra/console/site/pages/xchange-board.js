// Xchange's task board: one column per status, each task a card linking to its page.

import { xchange } from '../api.js';
import { h, notice, replace, section } from '../dom.js';
import { formatTime } from '../format.js';
import { boardColumns } from '../xchange/board.js';

export async function render(root) {
  const tasks = await xchange.tasks({});
  tasks.sort((a, b) => String(b.taski_creation_time).localeCompare(String(a.taski_creation_time)));
  const columns = boardColumns(tasks);
  replace(root, section('Exchange tasks',
    h('p', {}, h('a', { href: '#/xchange/subjects' }, 'Subjects →')),
    tasks.length === 0 ? notice('No task.') : null,
    h('div', { class: 'board', 'data-testid': 'board' }, columns.map((c) =>
      h('section', { class: 'column', 'aria-label': `${c.status}: ${c.tasks.length}`, 'data-status': c.status },
        h('h3', {}, `${c.status} (${c.tasks.length})`),
        h('ul', {}, c.tasks.map((t) => h('li', { class: 'task-card' },
          h('a', { href: `#/xchange/task/${encodeURIComponent(t.task_id)}` }, t.task_id),
          h('span', { class: 'small' }, ` ${t.task_assignment_type} · ${formatTime(t.taski_creation_time)}`)))))))));
}
