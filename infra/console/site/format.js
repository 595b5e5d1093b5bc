// Formatting of times, numbers and downloads. Pure functions (no DOM), tested under Node.

/** Parses the services' datetimes: naive ISO-8601 is UTC (voting-2-schema §2), a `Z` or offset is kept. */
export function parseTime(value) {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'number') return new Date(value * 1000);
  const s = String(value);
  const naive = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(s);
  // Date reads at most milliseconds; the services write microseconds.
  const trimmed = s.replace(/(\.\d{3})\d+/, '$1');
  const d = new Date(naive ? `${trimmed}Z` : trimmed);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** A time as `2026-10-22 10:03:12 UTC`, or `—`. */
export function formatTime(value) {
  const d = value instanceof Date ? value : parseTime(value);
  if (!d) return '—';
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A duration in seconds as `1 h 2 min`, `45 s`. Negative: `passed`. */
export function formatDuration(seconds) {
  if (seconds === null || seconds === undefined || Number.isNaN(seconds)) return '—';
  if (seconds < 0) return 'passed';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

/** A percentage of `part` in `whole`, rounded (0 when `whole` is 0). */
export function percent(part, whole) {
  return whole > 0 ? Math.round((100 * part) / whole) : 0;
}

/** A number with at most 4 decimals. */
export function formatNumber(n) {
  if (typeof n !== 'number') return String(n ?? '—');
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 1e4) / 1e4);
}

/** One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. */
export function csvField(value) {
  const s = value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** CSV text from column names and rows (arrays), CRLF line ends. */
export function toCsv(columns, rows) {
  return [columns, ...rows].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/** A label of a localised name object (`{"en": "..."}`) or a string. */
export function nameOf(name, fallback = '') {
  if (!name) return fallback;
  if (typeof name === 'string') return name;
  if (typeof name === 'object') return name.en || Object.values(name).find((v) => typeof v === 'string') || fallback;
  return String(name);
}
