// The bearer token of this browser tab: kept in sessionStorage only (gone when the tab closes).

const KEY = 'agora-console-token';

export function getToken() {
  try {
    return sessionStorage.getItem(KEY) || '';
  } catch {
    return '';
  }
}

export function setToken(token) {
  sessionStorage.setItem(KEY, token.trim());
}

export function clearToken() {
  sessionStorage.removeItem(KEY);
}

/** The claims of a JWT, read without checking it (only to show who is signed in), or null. */
export function claimsOf(token) {
  try {
    const part = token.split('.')[1];
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '='));
    return JSON.parse(json);
  } catch {
    return null;
  }
}
