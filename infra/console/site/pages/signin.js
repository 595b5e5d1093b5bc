// Sign-in: a bearer token pasted by the user, kept for this tab's session only.

import { getToken, setToken } from '../auth.js';
import { h, notice, section } from '../dom.js';

/** The sign-in form; `reason` (an ApiError or a string) says why it is shown. */
export function signInForm(reason, onDone) {
  const input = h('textarea', { id: 'token', name: 'token', rows: '4', required: true, autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'token-help' });
  const form = h('form', { class: 'signin', 'data-testid': 'signin-form' },
    h('label', { for: 'token' }, 'Bearer token'),
    input,
    h('p', { id: 'token-help', class: 'small' }, 'A JWT from your identity provider. It is kept in this tab only (sessionStorage) and sent on every call and on the live stream.'),
    h('button', { type: 'submit' }, 'Sign in'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!input.value.trim()) return;
    setToken(input.value);
    onDone();
  });
  return section('Sign in',
    reason ? authMessage(reason) : notice('Authentication is on: this server needs a bearer token.'),
    form);
}

/** A 401 or 403 said plainly. */
export function authMessage(error) {
  if (typeof error === 'string') return notice(error, 'error');
  const text = error.status === 403
    ? `Refused (403 Forbidden): your token is valid but not allowed to do this. The server said: ${error.message}`
    : `Not signed in (401 Unauthorized): ${getToken() ? 'the token was refused' : 'this server needs a bearer token'}. The server said: ${error.message}`;
  return h('p', { class: 'notice notice-error', role: 'alert', 'data-testid': 'auth-error' }, text);
}
