// The console: reads config.json, then routes the page's hash (`#/voting`, `#/voting/task/ID`,
// `#/orcade`, `#/orcade/job/ID`, `#/xchange`, `#/xchange/task/ID`, `#/xchange/subjects`,
// `#/signin`) to its page module. Hash routes work from any static host.

import { ApiError, getConfig, loadConfig, onAuthError } from './api.js';
import { claimsOf, clearToken, getToken } from './auth.js';
import { h, notice, replace, section } from './dom.js';
import { authMessage, signInForm } from './pages/signin.js';
import * as votingList from './pages/voting-list.js';
import * as votingTask from './pages/voting-task.js';
import * as orcadeList from './pages/orcade-list.js';
import * as orcadeJob from './pages/orcade-job.js';
import * as xchangeBoard from './pages/xchange-board.js';
import * as xchangeTask from './pages/xchange-task.js';
import * as xchangeSubjects from './pages/xchange-subjects.js';

const ROUTES = [
  [/^voting\/task\/(.+)$/, votingTask, 'voting'],
  [/^voting$/, votingList, 'voting'],
  [/^orcade\/job\/(.+)$/, orcadeJob, 'orcade'],
  [/^orcade$/, orcadeList, 'orcade'],
  [/^xchange\/subjects$/, xchangeSubjects, 'xchange'],
  [/^xchange\/task\/(.+)$/, xchangeTask, 'xchange'],
  [/^xchange$/, xchangeBoard, 'xchange'],
];

const main = document.getElementById('main');
const user = document.getElementById('user');
let cleanup = null;
let generation = 0;
/** Whether the user has moved from the first page (focus moves to each new page's heading then). */
let navigated = false;

function refreshUser() {
  const token = getToken();
  if (!token) {
    replace(user, getConfig().auth ? h('a', { href: '#/signin' }, 'Sign in') : h('span', { class: 'small' }, 'authentication off'));
    return;
  }
  const claims = claimsOf(token);
  replace(user, h('span', { class: 'small', 'data-testid': 'signed-in' }, `Signed in${claims?.sub ? ` as ${claims.sub}` : ''}`), ' ',
    h('button', { type: 'button', onclick: () => { clearToken(); refreshUser(); route(); } }, 'Sign out'));
}

async function route() {
  const mine = ++generation;
  cleanup?.();
  cleanup = null;
  const hash = decodeURIComponent(location.hash.replace(/^#\/?/, ''));
  const [path, query = ''] = hash.split('?');
  const params = new URLSearchParams(query);
  document.querySelectorAll('#nav a').forEach((a) => a.removeAttribute('aria-current'));
  if (path === 'signin' || (getConfig().auth && !getToken())) {
    replace(main, signInForm(null, () => { refreshUser(); location.hash = path === 'signin' || !path ? '#/voting' : `#/${hash}`; route(); }));
    return;
  }
  const match = ROUTES.map(([re, page, area]) => [re.exec(path || 'voting'), page, area]).find(([m]) => m);
  if (!match) {
    replace(main, section('Not found', notice(`No page at #/${path}.`)));
    return;
  }
  const [m, page, area] = match;
  document.querySelector(`#nav a[data-area="${area}"]`)?.setAttribute('aria-current', 'page');
  replace(main, h('p', { class: 'loading', role: 'status' }, 'Loading…'));
  try {
    const done = await page.render(main, params, m.slice(1));
    if (mine === generation) cleanup = typeof done === 'function' ? done : null;
    else if (typeof done === 'function') done();
    // Keyboard and screen-reader users land on the new page's heading (not on the first load).
    const heading = main.querySelector('h1, h2');
    heading?.setAttribute('tabindex', '-1');
    if (navigated) heading?.focus({ preventScroll: true });
  } catch (e) {
    if (mine !== generation) return;
    if (e instanceof ApiError && e.status === 401) {
      replace(main, signInForm(e, () => { refreshUser(); route(); }));
    } else if (e instanceof ApiError && e.status === 403) {
      replace(main, section('Refused', authMessage(e)));
    } else {
      replace(main, section('Error', notice(e instanceof ApiError ? `The API answered ${e.status}: ${e.message}` : `The page failed: ${e.message}`, 'error')));
    }
  }
}

onAuthError(() => refreshUser());
await loadConfig();
refreshUser();
window.addEventListener('hashchange', () => { navigated = true; route(); });
if (!location.hash) location.hash = '#/voting';
else route();
