// The console in a real browser (Debian's Chromium through playwright-core) against a real local
// server: a task created and voted through the API fills its roster and moves its gauge without
// a reload, then shows its winner and tally bars; instant-runoff rounds; a Schulze matrix; a
// closed bid job's bids and winner; a bidding exchange task's job. Screenshots of each page go to
// target/console-screenshots/.

import { after, before, test } from 'node:test';
import { createServer } from 'node:http';
import assert from 'node:assert/strict';
import { client, launchBrowser, screenshot, startServer, until, voteBody, votingTask } from './server.mjs';

let server;
let delegate;
let api;
let browser;
let page;
const pageErrors = [];

before(async () => {
  // The delegate system: every subject acknowledges its task, except `agent-offline-*`, whose
  // round trips fail (`success: false`), for the console to highlight.
  delegate = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const { subject_id: subject } = JSON.parse(body || '{}');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(String(subject).startsWith('agent-offline')
        ? { success: false, error: `${subject} is offline` }
        : { success: true, ack: { subject_id: subject, delegate: 'console-test' }, output: {} }));
    });
  });
  await new Promise((r) => delegate.listen(0, '127.0.0.1', r));
  server = await startServer({ DELEGATE_API_URL: `http://127.0.0.1:${delegate.address().port}` });
  api = client(server.url);
  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.on('pageerror', (e) => pageErrors.push(`page error: ${e.message}`));
  // Console errors include the content security policy's refusals.
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(`console error: ${m.text()}`));
});

after(async () => {
  await browser?.close();
  server?.stop();
  delegate?.close();
});

async function createStartedTask(body) {
  const created = await api('POST', '/submit-social-choice-task', body);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.social_task_id;
  await until(async () => (await api('GET', `/get-status/${id}`)).body.status === 'started', 15000, `${id} to start`);
  return id;
}

async function vote(id, subject, data) {
  const r = await api('POST', '/submit-vote', voteBody(id, subject, data));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

const text = (testId) => page.getByTestId(testId).innerText();

test('the console is served under /console/ with its own origin in config.json', async () => {
  const r = await fetch(`${server.url}/console`, { redirect: 'manual' });
  assert.equal(r.status, 308);
  assert.equal(r.headers.get('location'), '/console/');
  const config = await (await fetch(`${server.url}/console/config.json`)).json();
  assert.equal(config.api_base_url, server.url);
  assert.equal(config.live_stream_url, `${server.url.replace('http:', 'ws:')}/live-stream`);
  assert.equal(config.auth, false);
});

test('a live private task: the roster fills and the gauge moves without a reload, then the winner and tally bars', async () => {
  const reviewers = ['agent-reviewer-01', 'agent-reviewer-02', 'agent-reviewer-03'];
  const id = await createStartedTask(votingTask({
    access: 'private', orgIds: reviewers, live: true, pqt: 'option-on-ballot', rule: 'plurality', title: 'Lead translator',
    options: { 'agent-translator-01': 'Translator 01', 'agent-translator-02': 'Translator 02', 'agent-translator-03': 'Translator 03' },
  }));
  await page.goto(`${server.url}/console/#/voting/task/${id}`);
  await page.getByTestId('trigger-gauge').waitFor();
  assert.match(await text('trigger-gauge'), /0 of 3/);
  await until(async () => /Live: live stream connected/.test(await text('live-state')), 10000, 'the live stream');
  // A mark on the window: a reload would lose it.
  await page.evaluate(() => { window.__noReload = true; });

  await vote(id, 'agent-reviewer-01', { selected_option: 'agent-translator-02' });
  await page.waitForFunction(() => /1 of 3/.test(document.querySelector('[data-testid="trigger-gauge"]').innerText));
  assert.match(await page.locator('tr[data-subject="agent-reviewer-01"]').innerText(), /voted\s+qualified/);
  assert.match(await page.locator('tr[data-subject="agent-reviewer-02"]').innerText(), /not yet/);
  await screenshot(page, 'voting-task-in-progress');

  await vote(id, 'agent-reviewer-02', { selected_option: 'agent-translator-02' });
  await page.waitForFunction(() => /2 of 3/.test(document.querySelector('[data-testid="trigger-gauge"]').innerText));
  await vote(id, 'agent-reviewer-03', { selected_option: 'agent-translator-01' });

  await page.getByTestId('winners').waitFor({ timeout: 15000 });
  assert.match(await text('winners'), /Translator 02 \(agent-translator-02\)/);
  assert.match(await text('trigger-gauge'), /3 of 3/);
  const bars = await page.locator('[data-testid="tally-bars"] .bar-row').evaluateAll((rows) =>
    rows.map((r) => [r.dataset.option, r.querySelector('.bar-value').textContent, r.classList.contains('winner')]));
  assert.deepEqual(bars, [['agent-translator-02', '2', true], ['agent-translator-01', '1', false], ['agent-translator-03', '0', false]]);
  assert.equal(await page.evaluate(() => window.__noReload), true, 'the page was not reloaded');
  assert.match(await text('tie-breaker'), /did not run/);
  // The lifecycle shows when the service started and evaluated it.
  const steps = await page.locator('[data-testid="timeline"] li').evaluateAll((items) =>
    items.map((li) => [li.querySelector('.tl-step').textContent, li.querySelector('.tl-time').textContent]));
  for (const step of ['started', 'evaluated']) {
    assert.match(steps.find(([s]) => s === step)?.[1] ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/, `${step}: ${JSON.stringify(steps)}`);
  }
  await screenshot(page, 'voting-task-complete');

  await page.goto(`${server.url}/console/#/voting?status=complete`);
  await page.locator(`tr[data-task="${id}"]`).waitFor();
  assert.match(await page.locator(`tr[data-task="${id}"]`).innerText(), /complete\s+private.*3 \/ 3.*plurality\s+on/s);
  await screenshot(page, 'voting-list');
});

test('a polled task can be paused: no update arrives while paused', async () => {
  const id = await createStartedTask(votingTask({
    access: 'public', duration: 3, pqt: 'option-on-ballot', rule: 'plurality', title: 'Paused', options: { a: 'A', b: 'B' },
  }));
  await page.goto(`${server.url}/console/#/voting/task/${id}`);
  await until(async () => /Polling: polled/.test(await text('live-state')), 10000, 'polling');
  await page.getByTestId('pause').click();
  await vote(id, 'voter-1', { selected_option: 'a' });
  await new Promise((r) => setTimeout(r, 2500));
  assert.match(await text('trigger-gauge'), /0 of 3/, 'paused: the vote is not shown');
  await page.getByTestId('pause').click();
  await page.waitForFunction(() => /1 of 3/.test(document.querySelector('[data-testid="trigger-gauge"]').innerText));
});

test('a tie shows the tie-breaker\'s output and both tied options in the bars', async () => {
  const id = await createStartedTask(votingTask({
    access: 'public', duration: 2, pqt: 'option-on-ballot', rule: 'plurality', title: 'Tied', options: { x: 'X-ray', y: 'Yankee' },
  }));
  await vote(id, 'voter-1', { selected_option: 'y' });
  await vote(id, 'voter-2', { selected_option: 'x' });
  await page.goto(`${server.url}/console/#/voting/task/${id}`);
  await page.getByTestId('winners').waitFor({ timeout: 15000 });
  assert.match(await text('winners'), /^Winner: X-ray \(x\)$/);
  assert.match(await text('tie-breaker'), /"winner": "x"/);
  assert.match(await text('tie-breaker'), /lexicographic/);
  const values = await page.locator('[data-testid="tally-bars"] .bar-value').allInnerTexts();
  assert.deepEqual(values, ['1', '1']);
});

test('an instant-runoff task shows its rounds, with a round slider', async () => {
  const id = await createStartedTask(votingTask({
    access: 'public', duration: 5, pqt: 'valid-ranking', rule: 'instant-runoff', title: 'Ranked', options: { a: 'Alpha', b: 'Bravo', c: 'Charlie' },
  }));
  for (const [voter, ranking] of [['v1', ['a']], ['v2', ['a']], ['v3', ['b', 'c']], ['v4', ['c', 'b']], ['v5', ['c', 'b']]]) {
    await vote(id, voter, { ranking });
  }
  await page.goto(`${server.url}/console/#/voting/task/${id}`);
  await page.getByTestId('round-slider').waitFor({ timeout: 15000 });
  assert.match(await text('winners'), /Charlie \(c\)/);
  assert.equal(await page.getByTestId('round-slider').getAttribute('max'), '2');
  assert.match(await text('round-facts'), /eliminated at the end: Bravo/);
  await page.getByTestId('round-slider').focus();
  await page.keyboard.press('ArrowRight');
  assert.match(await text('round-facts'), /Transferred in: 1 · exhausted: 0 .* final round/);
  assert.match(await page.locator('.round-view table').innerText(), /Charlie\s+3\s+2\s+\+1/);
  await screenshot(page, 'voting-irv-rounds');
});

test('a Schulze task shows its pairwise matrix, strongest paths and Condorcet winner', async () => {
  const id = await createStartedTask(votingTask({
    access: 'public', duration: 3, pqt: 'valid-ranking', rule: 'schulze', title: 'Pairwise', options: { a: 'Alpha', b: 'Bravo', c: 'Charlie' },
  }));
  for (const [voter, ranking] of [['v1', ['a', 'b', 'c']], ['v2', ['b', 'c', 'a']], ['v3', ['a', 'c', 'b']]]) await vote(id, voter, { ranking });
  await page.goto(`${server.url}/console/#/voting/task/${id}`);
  await page.getByTestId('pairwise-matrix').waitFor({ timeout: 15000 });
  const cells = await page.locator('[data-testid="pairwise-matrix"] tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => `${td.textContent}|${td.className}`)));
  assert.deepEqual(cells[0], ['—|diag', '2–1 W|cell-win', '2–1 W|cell-win']);
  assert.deepEqual(cells[1], ['1–2 L|cell-lose', '—|diag', '2–1 W|cell-win']);
  assert.match(await text('condorcet'), /Condorcet winner: Alpha \(a\)/);
  await page.getByTestId('strongest-paths').waitFor();
  const paths = await page.locator('[data-testid="strongest-paths"] tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
  assert.deepEqual(paths, [['—', '1 ▲', '1 ▲'], ['0 ▼', '—', '1 ▲'], ['0 ▼', '0 ▼', '—']]);
  assert.match(await text('winners'), /Alpha/);
  await screenshot(page, 'voting-schulze-matrix');
});

test('a closed bid job shows its bids (the refused one with its PQT reason) and its winner', async () => {
  const created = await api('POST', '/bid-jobs', {
    bid_job_name: { en: 'Translate the Q3 report' }, bid_job_description: {}, bid_job_metadata: { parameters: { min: 0.8 } },
    bid_job_pqt_id: 'builtin:min-confidence', bid_job_evaluator_id: 'builtin:lowest-price', bid_job_creator_id: 'planner-service',
    bid_job_subject_ids: ['agent-translator-01', 'agent-translator-02', 'agent-translator-03'],
  });
  assert.equal(created.status, 201);
  const job = created.body.data.bid_job_id;
  const bid = (subject, data) => api('POST', `/bid-jobs/${job}/bids`, { bid_subject_id: subject, bid_data: data });
  assert.equal((await bid('agent-translator-01', { price_usd: 90, confidence: 0.5 })).status, 409);
  assert.equal((await bid('agent-translator-02', { price_usd: 120, confidence: 0.9 })).status, 201);
  assert.equal((await bid('agent-translator-03', { price_usd: 150, confidence: 0.95 })).status, 201);
  await until(async () => (await api('GET', `/bid-jobs/${job}/task-results`)).body.data.some((r) => r.task_type === 'bid_winner'), 15000, 'the bid_winner');

  await page.goto(`${server.url}/console/#/orcade/job/${job}`);
  await page.getByTestId('bids-table').waitFor();
  assert.match(await text('job-winner'), /agent-translator-02/);
  assert.match(await page.locator('tr[data-subject="agent-translator-01"]').innerText(), /refused.*confidence/is);
  assert.match(await page.locator('.bids tr[data-subject="agent-translator-02"]').innerText(), /winner/);
  // Sort by price, highest first.
  await page.locator('button[data-sort="price_usd"]').click();
  await page.locator('button[data-sort="price_usd"]').click();
  const order = await page.locator('.bids tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.subject));
  assert.deepEqual(order, ['agent-translator-03', 'agent-translator-02', 'agent-translator-01']);
  assert.match(await page.locator('section[aria-label="Evaluator output"]').innerText(), /winner_subject_id/);
  assert.equal(await page.locator('.round-trips tbody tr').count(), 4);
  await screenshot(page, 'orcade-job');
  await page.goto(`${server.url}/console/#/orcade`);
  await page.locator(`tr[data-job="${job}"]`).waitFor();
  assert.match(await page.locator(`tr[data-job="${job}"]`).innerText(), /closed.*3.*1 refused.*agent-translator-02/s);
  await screenshot(page, 'orcade-list');
});

test('a failed delegate round trip is highlighted on its job', async () => {
  const created = await api('POST', '/bid-jobs', {
    bid_job_name: { en: 'With an offline agent' }, bid_job_description: {}, bid_job_metadata: {},
    bid_job_evaluator_id: 'builtin:lowest-price', bid_job_creator_id: 'planner-service',
    bid_job_subject_ids: ['agent-offline-01', 'agent-translator-21'],
  });
  assert.equal(created.status, 201);
  const job = created.body.data.bid_job_id;
  await until(async () => (await api('GET', `/bid-jobs/${job}/task-results`)).body.data.length === 2, 15000, 'both bid_requests');
  await page.goto(`${server.url}/console/#/orcade/job/${job}`);
  await page.locator('.round-trips').waitFor();
  const rows = await page.locator('.round-trips tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.cells[2].textContent, tr.className, tr.cells[3].textContent]));
  assert.deepEqual(rows.sort(), [['agent-offline-01', 'failed', 'failed'], ['agent-translator-21', '', 'ok']]);
  assert.match(await page.locator('.round-trips tr.failed').innerText(), /agent-offline-01 is offline/);
  await screenshot(page, 'orcade-job-failed-round-trip');
});

test('a bidding exchange task shows its Orcade job, its winner and its output', async () => {
  for (const s of [{ subject_id: 'agent-translator-11', topics: ['translation'] }, { subject_id: 'agent-translator-12', topics: ['translation', 'fr'], subject_capabilities: { languages: ['fr'] } }]) {
    assert.equal((await api('POST', '/subjects', s)).status, 201);
  }
  const created = await api('POST', '/tasks', {
    task_id: 'translate-console', task_assignment_type: 'bidding', task_data: { doc: 'q3.pdf' },
    task_metadata: { task_assignment: { bid_job_evaluator_id: 'builtin:lowest-price', bid_job_description: { task_type: 'translate_document' }, topics: ['translation'] } },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const job = await until(async () => (await api('GET', '/tasks/translate-console')).body.data.task_metadata.bid_job_id, 15000, 'the bid job');
  await api('POST', `/bid-jobs/${job}/bids`, { bid_subject_id: 'agent-translator-11', bid_data: { price_usd: 120 } });
  await api('POST', `/bid-jobs/${job}/bids`, { bid_subject_id: 'agent-translator-12', bid_data: { price_usd: 95 } });
  await until(async () => (await api('GET', '/tasks/translate-console/output')).body.data.task_assignment_status === 'completed', 15000, 'the task to complete');

  await page.goto(`${server.url}/console/#/xchange/task/translate-console`);
  await page.getByTestId('xchange-job').waitFor();
  assert.match(await text('xchange-job'), /closed/);
  assert.match(await text('xchange-job'), /agent-translator-12.*winner/s);
  assert.match(await text('chosen-subject'), /agent-translator-12/);
  await screenshot(page, 'xchange-task');
  await page.goto(`${server.url}/console/#/xchange`);
  await page.locator('[data-status="completed"] a', { hasText: 'translate-console' }).waitFor();
  await screenshot(page, 'xchange-board');
  await page.goto(`${server.url}/console/#/xchange/subjects`);
  await page.getByText('agent-translator-12').first().waitFor();
  await screenshot(page, 'xchange-subjects');
});

test('on a phone-sized screen the task list fits and the keyboard reaches the navigation', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${server.url}/console/#/voting`);
  await page.reload();
  await page.locator('tr[data-task]').first().waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `the page is ${overflow}px wider than the screen`);
  // The task table stacks its rows as cards, each cell under its column's name: none is cut off.
  const tableWidth = await page.locator('table.data').first().evaluate((t) => t.scrollWidth);
  assert.ok(tableWidth <= 390, `the task table is ${tableWidth}px wide`);
  const label = await page.locator('tr[data-task] td').nth(1).evaluate((td) => getComputedStyle(td, '::before').content);
  assert.equal(label, '"Status"');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Voting');
  await screenshot(page, 'voting-list-phone');
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('no page error and no console error (content security policy refusals included) on any page', () => {
  assert.deepEqual(pageErrors, []);
});
