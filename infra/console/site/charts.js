// Charts, each with its numbers in a table beside it (and the numbers on the chart itself).
// Colours are the Okabe–Ito palette (told apart with any colour vision); no chart speaks by
// colour alone: winners, outcomes and states are also written out.

import { h, table } from './dom.js';
import { formatNumber, formatTime } from './format.js';

/** Okabe–Ito: blue, orange, bluish green, vermillion, sky blue, reddish purple, yellow, black. */
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#56B4E9', '#CC79A7', '#F0E442', '#000000'];

/** A chart and its numbers side by side (stacked on a phone). */
export function withNumbers(chart, numbers) {
  return h('div', { class: 'chart-pair' }, h('div', { class: 'chart' }, chart), h('div', { class: 'numbers' }, numbers));
}

/**
 * Horizontal bars, sorted as given (`rows`: `{key, label, value, share?, winner?}`), each with its
 * number; the winners marked ★ and named. Beside it, the same numbers as a table.
 */
export function barChart(rows, { title, valueName = 'votes', testId } = {}) {
  const max = Math.max(0, ...rows.map((r) => r.value));
  const bars = h('div', { class: 'bars', role: 'img', 'aria-label': `${title || 'Bar chart'}: ${rows.map((r) => `${r.label} ${formatNumber(r.value)}`).join(', ')}`, 'data-testid': testId },
    rows.map((r, i) =>
      h('div', { class: `bar-row${r.winner ? ' winner' : ''}`, 'data-option': r.key },
        h('span', { class: 'bar-label' }, r.winner ? '★ ' : '', r.label),
        h('span', { class: 'bar-track' },
          h('span', { class: 'bar', style: { width: `${max > 0 ? (100 * Math.max(0, r.value)) / max : 0}%`, background: PALETTE[i % PALETTE.length] } })),
        h('span', { class: 'bar-value' }, formatNumber(r.value)))));
  const numbers = table(['Option', valueName, 'Share', 'Winner'],
    rows.map((r) => [r.label === r.key ? r.key : `${r.label} (${r.key})`, formatNumber(r.value), `${formatNumber(Math.round((r.share ?? 0) * 10) / 10)} %`, r.winner ? 'winner' : '']),
    { caption: title });
  return withNumbers(bars, numbers);
}

/** A gauge: `current` of `target` (null: no target), as a progress bar with its numbers. */
export function gauge({ current, target, rule }, { label = 'Progress to the trigger', testId } = {}) {
  const pct = target ? Math.min(100, Math.round((100 * current) / target)) : 0;
  const text = target === null ? `${current} (${rule})` : `${current} of ${target} (${pct} %)`;
  return h('div', { class: 'gauge', 'data-testid': testId },
    h('div', { class: 'gauge-label' }, label, ': ', h('strong', { class: 'gauge-text' }, text)),
    h('div', { class: 'gauge-track', role: 'progressbar', 'aria-label': label, 'aria-valuemin': '0', 'aria-valuemax': String(target ?? 0), 'aria-valuenow': String(current), 'aria-valuetext': text },
      h('div', { class: 'gauge-fill', style: { width: `${pct}%` } })),
    h('div', { class: 'gauge-rule' }, target === null ? '' : `Trigger: ${rule}`));
}

/** A timeline of steps `{step, time, done, note}`: a list, each step's time written out. */
export function timeline(steps, { testId } = {}) {
  return h('ol', { class: 'timeline', 'data-testid': testId },
    steps.map((s) =>
      h('li', { class: s.done ? 'done' : 'todo' },
        h('span', { class: 'tl-mark', 'aria-hidden': 'true' }, s.done ? '●' : '○'),
        h('span', { class: 'tl-step' }, s.step),
        h('span', { class: 'tl-time' }, s.time ? formatTime(s.time) : s.done ? (s.note || 'time not recorded') : 'not yet'),
        s.time && s.note ? h('span', { class: 'tl-note' }, s.note) : null)));
}

/** A step chart of cumulative counts over time (`points`: `{time: Date, all, qualified}`), and its table. */
export function votesChart(points, { testId } = {}) {
  const width = 480;
  const height = 160;
  const pad = 28;
  let chart;
  if (points.length === 0) {
    chart = h('p', { class: 'empty' }, 'No votes yet.');
  } else {
    const t0 = points[0].time.getTime();
    const t1 = Math.max(points.at(-1).time.getTime(), t0 + 1000);
    const maxY = Math.max(1, points.at(-1).all);
    const x = (t) => pad + ((width - 2 * pad) * (t - t0)) / (t1 - t0);
    const y = (n) => height - pad - ((height - 2 * pad) * n) / maxY;
    const path = (key) => {
      let d = `M ${x(t0)} ${y(0)}`;
      for (const p of points) d += ` H ${x(p.time.getTime())} V ${y(p[key])}`;
      return d;
    };
    chart = h('svg:svg', { viewBox: `0 0 ${width} ${height}`, class: 'line-chart', role: 'img', 'aria-label': `Votes over time: ${points.at(-1).all} votes, ${points.at(-1).qualified} qualified` },
      h('svg:line', { x1: pad, y1: height - pad, x2: width - pad, y2: height - pad, class: 'axis' }),
      h('svg:line', { x1: pad, y1: pad, x2: pad, y2: height - pad, class: 'axis' }),
      h('svg:text', { x: 4, y: pad + 4, class: 'tick' }, String(maxY)),
      h('svg:text', { x: 4, y: height - pad, class: 'tick' }, '0'),
      h('svg:path', { d: path('all'), class: 'series', stroke: PALETTE[0] }),
      h('svg:path', { d: path('qualified'), class: 'series dashed', stroke: PALETTE[1] }),
      h('svg:text', { x: width - pad, y: 14, class: 'legend', 'text-anchor': 'end', fill: PALETTE[0] }, '— all votes'),
      h('svg:text', { x: width - pad, y: 28, class: 'legend', 'text-anchor': 'end', fill: PALETTE[1] }, '- - qualified'));
  }
  const numbers = table(['Time', 'All votes', 'Qualified'], points.map((p) => [formatTime(p.time), p.all, p.qualified]), { caption: 'Votes over time' });
  return h('div', { 'data-testid': testId }, withNumbers(chart, numbers));
}
