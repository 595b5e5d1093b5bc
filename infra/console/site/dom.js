// Building the page's elements. Text always goes in as text nodes (never as HTML), so data from
// the API cannot inject markup.

/** `h('div', {class: 'x', onclick}, child, ...)`: an element with attributes and children. */
export function h(tag, attrs = {}, ...children) {
  const el = tag.startsWith('svg:')
    ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4))
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces the children of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A section with a heading. */
export function section(title, ...children) {
  return h('section', { class: 'card', 'aria-label': title }, h('h2', {}, title), ...children);
}

/** A table from column titles and rows of cells (strings, numbers or nodes). */
export function table(columns, rows, { caption, className } = {}) {
  const el = h('table', { class: className || 'data' },
    caption ? h('caption', {}, caption) : null,
    h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, rows.map((r) => (r instanceof Node ? r : h('tr', {}, r.map((c) => h('td', {}, c)))))));
  // Each cell names its column: on a phone the rows stack as cards, each cell under its name.
  for (const tr of el.tBodies[0].rows) [...tr.cells].forEach((td, i) => td.dataset.label ??= columns[i] ?? '');
  return el;
}

/** A badge for a status word; the class lets the stylesheet colour it (with its text always shown). */
export function badge(text, kind = String(text)) {
  return h('span', { class: `badge badge-${String(kind).replace(/[^a-z0-9_-]/gi, '')}` }, text);
}

/** A JSON value shown as indented text. */
export function jsonBlock(value) {
  return h('pre', { class: 'json', tabindex: '0' }, JSON.stringify(value, null, 2));
}

/** A notice that a part of the console is not built or not available. */
export function notice(text, kind = 'info') {
  return h('p', { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : 'note' }, text);
}
