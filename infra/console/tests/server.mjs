// Test helpers: a local server (the real `agora-local` binary) on a free port with a fresh data
// folder, a JSON client for its API, and Chromium through playwright-core.

import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const SCREENSHOTS = path.join(ROOT, 'target', 'console-screenshots');

/** Starts `AGORA_LOCAL_BIN` (default target/debug/agora-local) with `--port 0`; resolves once it serves. */
export async function startServer(env = {}) {
  const bin = process.env.AGORA_LOCAL_BIN || path.join(ROOT, 'target', 'debug', 'agora-local');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'agora-console-'));
  const child = spawn(bin, ['--port', '0', '--data-dir', dataDir, '--sweep-interval-ms', '100'], {
    cwd: ROOT,
    env: { ...process.env, RUST_LOG: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`agora-local did not start within 30 s: ${stderr}`)), 30000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`agora-local exited (${code}): ${stderr}`)));
  });
  return {
    url,
    stop() {
      child.kill('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A JSON client of `base`, with an optional bearer token. */
export function client(base, token) {
  return async function call(method, p, body) {
    const headers = { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const r = await fetch(base + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  };
}

/** Polls `check` (async, truthy when done) every 100 ms for up to `ms`. */
export async function until(check, ms = 15000, what = 'condition') {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Chromium (Debian's, `/usr/bin/chromium` or CHROMIUM_BIN) through playwright-core, with a fresh profile. */
export async function launchBrowser() {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(path.join(tmpdir(), 'agora-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_BIN || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 900 },
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page, name) {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** A voting task's creation body: builtin hooks, started at once (scheduled in the past). */
export function votingTask({ access = 'private', orgIds = [], duration, options, pqt, rule, live = false, title }) {
  return {
    social_task: {
      created_by_subject_id: 'planner-service', created_by_subject_data: {}, org_ids: orgIds, access_type: access,
      goal: {}, topics: [], properties: {}, creation_time: '2026-01-01T09:00:00', scheduled_time: '2026-01-01T10:00:00',
      status: 'scheduled', enable_live_streaming: live, ...(duration ? { duration } : {}),
    },
    subject_spec: { title, description: `A ${rule} task of the console test`, voting_options: options, voting_metadata: {}, supported_protocols: [], voting_request: {} },
    evaluation_spec: {
      constraints_primary: '', constraints_secondary: '', voting_pqt: { mode: 'builtin', name: pqt },
      evaluation: { mode: 'builtin', name: rule }, tie_breaker: { mode: 'builtin', name: 'lexicographic' }, post_award: { mode: 'builtin', name: 'assign-first-winner' },
    },
  };
}

export function voteBody(task, subject, voteData) {
  return { vote_id: randomUUID(), social_task_id: task, submitter_subject_id: subject, vote_data: voteData, submission_time: '2026-01-01T10:00:00', qualified: true };
}
