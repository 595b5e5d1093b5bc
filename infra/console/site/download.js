// Downloads made in the page (no server round trip): a JSON or CSV file from data at hand.

import { h } from './dom.js';
import { toCsv } from './format.js';

function save(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A button that downloads `data()` as pretty JSON. */
export function jsonButton(label, name, data) {
  return h('button', { type: 'button', onclick: () => save(name, 'application/json', JSON.stringify(data(), null, 2)) }, label);
}

/** A button that downloads `{columns, rows}` from `data()` as CSV. */
export function csvButton(label, name, data) {
  return h('button', { type: 'button', onclick: () => { const { columns, rows } = data(); save(name, 'text/csv', toCsv(columns, rows)); } }, label);
}
