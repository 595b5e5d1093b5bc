// Calls to the three services. The base URL comes from config.json (empty: the page's own
// origin); every call carries the session's bearer token when there is one. Errors are thrown as
// ApiError with the status and the service's message (`error` for the services, `message` for
// API Gateway's own refusals).

import { getToken } from './auth.js';

let config = { api_base_url: '', live_stream_url: '', auth: false };

/** Reads config.json beside the page (missing: same origin, authentication unknown). */
export async function loadConfig() {
  try {
    const response = await fetch('config.json', { cache: 'no-cache' });
    if (response.ok) config = { ...config, ...(await response.json()) };
  } catch {
    // No config.json: same origin.
  }
  return config;
}

export function getConfig() {
  return config;
}

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
  /** A refusal of who is calling: 401 (no valid token) or 403 (not allowed). */
  get isAuth() {
    return this.status === 401 || this.status === 403;
  }
}

/** The listeners told of every 401/403 (the sign-in shows them). */
const authListeners = new Set();
export function onAuthError(listener) {
  authListeners.add(listener);
}

/** One call: `method` `path` with an optional JSON `body`; answers the parsed JSON. */
export async function call(method, path, body) {
  const headers = { accept: 'application/json' };
  const token = getToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response;
  try {
    response = await fetch(`${config.api_base_url || ''}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(0, `The API could not be reached (${e.message}).`);
  }
  const text = await response.text();
  let json;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!response.ok || (json && json.ok === false)) {
    const message = (json && (json.error || json.message)) || text || response.statusText;
    const error = new ApiError(response.status, String(message), json);
    if (error.isAuth) authListeners.forEach((l) => l(error));
    throw error;
  }
  return json;
}

/** Orcade and Xchange answer `{"ok": true, "data": ...}`: the data. */
async function enveloped(method, path, body) {
  const json = await call(method, path, body);
  return json && typeof json === 'object' && 'ok' in json ? json.data : json;
}

const q = (limit) => (limit ? `?limit=${limit}` : '');

export const voting = {
  query: (collection, filter = {}, limit = 500) => call('POST', `/generic-query/${collection}${q(limit)}`, filter),
  bundle: (id) => call('GET', `/get-full-task-bundle/${encodeURIComponent(id)}`),
  report: (id) => call('GET', `/get-report/${encodeURIComponent(id)}`),
  status: (id) => call('GET', `/get-status/${encodeURIComponent(id)}`),
  liveEnabled: (id) => call('GET', `/is-live-streaming-enabled/${encodeURIComponent(id)}`),
};

export const orcade = {
  jobs: (filter = {}, limit = 500) => enveloped('POST', `/bid-jobs/query${q(limit)}`, filter),
  job: (id) => enveloped('GET', `/bid-jobs/${encodeURIComponent(id)}`),
  bids: (id) => enveloped('GET', `/bid-jobs/${encodeURIComponent(id)}/bids`),
  allBids: (filter = {}, limit = 2000) => enveloped('POST', `/bids/query${q(limit)}`, filter),
  taskResults: (id) => enveloped('GET', `/bid-jobs/${encodeURIComponent(id)}/task-results`),
};

export const xchange = {
  tasks: (filter = {}, limit = 500) => enveloped('POST', `/tasks/query${q(limit)}`, filter),
  task: (id) => enveloped('GET', `/tasks/${encodeURIComponent(id)}`),
  subjects: (filter = {}, limit = 500) => enveloped('POST', `/subjects/query${q(limit)}`, filter),
};
