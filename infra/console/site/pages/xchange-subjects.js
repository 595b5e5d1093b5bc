// The exchange's subjects with their topics and capabilities.

import { xchange } from '../api.js';
import { h, jsonBlock, notice, replace, section, table } from '../dom.js';

export async function render(root) {
  const subjects = await xchange.subjects({});
  subjects.sort((a, b) => String(a.subject_id).localeCompare(String(b.subject_id)));
  replace(root, section('Subjects',
    h('p', {}, h('a', { href: '#/xchange' }, '← Exchange tasks')),
    subjects.length === 0 ? notice('No subject registered.') :
      h('div', { class: 'scroll' }, table(['Subject', 'Topics', 'Capabilities', 'Open-mode evaluation', 'Metadata'],
        subjects.map((s) => [s.subject_id, (s.topics || []).join(', ') || '—', jsonBlock(s.subject_capabilities || {}), s.task_evaluation_function || '—', jsonBlock(s.subject_metadata || {})]),
        { caption: `${subjects.length} subjects` }))));
}
