// With authentication on: the console asks for a token, is refused without one (and with a bad
// one, saying so plainly), signs in with an RS256 token (its JWKS served here, the token signed
// with node:crypto), keeps it for the tab's session only, and sends it on every call and on the
// live stream.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createSign, generateKeyPairSync } from 'node:crypto';
import { client, launchBrowser, screenshot, startServer, until, voteBody, votingTask } from './server.mjs';

const ISSUER = 'https://issuer.console.test';
const AUDIENCE = 'agora-console-test';
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const KID = 'console-test-key';

const b64url = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** An RS256 JWT for `sub` with `scope`, valid for an hour. */
function token(sub, scope = '') {
  const now = Math.floor(Date.now() / 1000);
  const head = b64url({ alg: 'RS256', typ: 'JWT', kid: KID });
  const body = b64url({ iss: ISSUER, aud: AUDIENCE, sub, scope, iat: now, nbf: now - 5, exp: now + 3600 });
  const signature = createSign('RSA-SHA256').update(`${head}.${body}`).sign(privateKey).toString('base64url');
  return `${head}.${body}.${signature}`;
}

let jwks;
let server;
let browser;
let page;
const admin = token('console-operator', 'agora:admin');

before(async () => {
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: KID, alg: 'RS256', use: 'sig' };
  jwks = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise((r) => jwks.listen(0, '127.0.0.1', r));
  server = await startServer({
    AGORA_AUTH_JWKS_URL: `http://127.0.0.1:${jwks.address().port}/jwks.json`,
    AGORA_AUTH_ISSUER: ISSUER,
    AGORA_AUTH_AUDIENCE: AUDIENCE,
  });
  browser = await launchBrowser();
  page = await browser.context.newPage();
});

after(async () => {
  await browser?.close();
  server?.stop();
  jwks?.close();
});

test('without a token the console asks for one, and the API refuses it (401)', async () => {
  const config = await (await fetch(`${server.url}/console/config.json`)).json();
  assert.equal(config.auth, true);
  assert.equal((await client(server.url)('POST', '/generic-query/social_task_core_data', {})).status, 401);
  await page.goto(`${server.url}/console/#/voting`);
  await page.getByTestId('signin-form').waitFor();
  assert.equal(await page.locator('tr[data-task]').count(), 0);
  await screenshot(page, 'signin');
});

test('a bad token is refused and the console says so plainly', async () => {
  await page.locator('#token').fill(token('someone').replace(/.{8}$/, 'AAAAAAAA'));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('auth-error').waitFor();
  assert.match(await page.getByTestId('auth-error').innerText(), /401 Unauthorized.*the token was refused/);
  await screenshot(page, 'signin-refused');
});

test('signed in with a token: pages load, the token stays in the session, and the live stream takes it', async () => {
  const api = client(server.url, admin);
  const created = await api('POST', '/submit-social-choice-task', votingTask({
    access: 'private', orgIds: ['console-operator', 'agent-reviewer-02'], live: true, pqt: 'option-on-ballot', rule: 'plurality', title: 'Signed in', options: { a: 'A', b: 'B' },
  }));
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.social_task_id;
  await until(async () => (await api('GET', `/get-status/${id}`)).body.status === 'started', 15000, 'the task to start');

  await page.locator('#token').fill(admin);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator(`tr[data-task="${id}"]`).waitFor();
  assert.match(await page.getByTestId('signed-in').innerText(), /console-operator/);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('agora-console-token')), admin);
  assert.equal(await page.evaluate(() => localStorage.length), 0);

  await page.goto(`${server.url}/console/#/voting/task/${id}`);
  await until(async () => /Live: live stream connected/.test(await page.getByTestId('live-state').innerText()), 10000, 'the live stream');
  const r = await api('POST', '/submit-vote', voteBody(id, 'console-operator', { selected_option: 'a' }));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  await page.waitForFunction(() => /1 of 2/.test(document.querySelector('[data-testid="trigger-gauge"]').innerText));
  assert.match(await page.getByTestId('live-state').innerText(), /^Live/);
  await screenshot(page, 'signed-in-task');

  // API Gateway's own 403 for a valid token without the route's scopes (`{"message": "Forbidden"}`):
  // said plainly. The local server refuses no read, so the answer is API Gateway's, played here.
  await page.route('**/generic-query/**', (route) => route.fulfill({ status: 403, contentType: 'application/json', body: '{"message":"Forbidden"}' }));
  await page.goto(`${server.url}/console/#/voting`);
  await page.getByTestId('auth-error').waitFor();
  assert.match(await page.getByTestId('auth-error').innerText(), /Refused \(403 Forbidden\).*not allowed.*Forbidden/);
  await page.unroute('**/generic-query/**');
  await screenshot(page, 'refused-403');

  // Signing out forgets the token: the console asks again.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByTestId('signin-form').waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('agora-console-token')), null);
});
