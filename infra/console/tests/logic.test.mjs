// Unit tests of the console's own logic, importing the same ES modules the page loads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tallyRows, resultOf, ruleName, tallyFromVotes, optionsOf } from '../site/voting/tally.js';
import { rosterRows, triggerProgress, votesOverTime, lifecycle } from '../site/voting/roster.js';
import { roundDeltas, computeRounds } from '../site/voting/rounds.js';
import { supportFromVotes, matrixCells, condorcetWinner, strongestPaths, schulzeWinners } from '../site/voting/pairwise.js';
import { parseTime, toCsv, formatDuration } from '../site/format.js';
import { bidRows, sortBids, rosterProgress, roundTripFailed, winnerOf } from '../site/orcade/bids.js';
import { boardColumns, taskSteps } from '../site/xchange/board.js';

const vote = (subject, data, qualified = true, time = '2026-10-22T10:00:00') => ({
  vote_id: `v-${subject}`, social_task_id: 't', submitter_subject_id: subject, vote_data: data, qualified, submission_time: time,
});
const rank = (subject, ...ranking) => vote(subject, { ranking });

test('tally to rows: sorted by value then key, every option listed, shares and winners', () => {
  const options = optionsOf({ voting_options_map: { a: 'A', b: 'B', c: 'C' } });
  const rows = tallyRows({ b: 2, a: 1 }, options, ['b']);
  assert.deepEqual(rows.map((r) => [r.key, r.label, r.value, r.winner]), [['b', 'B', 2, true], ['a', 'A', 1, false], ['c', 'C', 0, false]]);
  assert.equal(Math.round(rows[0].share), 67);
  // Ties: by key.
  assert.deepEqual(tallyRows({ z: 1, y: 1 }).map((r) => r.key), ['y', 'z']);
  assert.deepEqual(tallyRows(null, []), []);
});

test('result of a report: winners, counts kind, tie-breaker, post-award; none before evaluation', () => {
  assert.equal(resultOf({}), null);
  const r = resultOf({
    winners: ['x'], evaluated_at: '2026-10-22T10:07:45', post_award_payload: { assigned_to: 'x' },
    dsl_outputs: { choice_evaluation_dsl: { winners: ['x', 'y'], scores: { x: 3, y: 3 } }, tie_breaker_dsl: { winner: 'x', rule: 'earliest-vote' } },
  });
  assert.deepEqual([r.winners, r.countsKind, r.counts, r.tieBreaker.winner, r.postAward.assigned_to], [['x'], 'scores', { x: 3, y: 3 }, 'x', 'x']);
  assert.equal(ruleName({ choice_evaluation: { mode: 'builtin', name: 'schulze' } }), 'schulze');
  assert.equal(ruleName({ choice_evaluation: { mode: 'dsl', workflow_id: 'w:1' } }), 'w:1');
  assert.deepEqual(tallyFromVotes([vote('1', { selected_option: 'a' }), vote('2', { selected_option: 'a' }, false), vote('3', { selected_option: 'b' })]), { a: 1, b: 1 });
});

test('roster join: every member, voted or not, qualified or not, then outsiders', () => {
  const task = { social_task_access_type: 'private', org_ids: ['r1', 'r2', 'r3'] };
  const votes = [vote('r2', {}, false, '2026-10-22T10:00:02'), vote('r1', {}, true, '2026-10-22T10:00:01')];
  const rows = rosterRows(task, votes);
  assert.deepEqual(rows.map((r) => [r.subject, r.voted, r.qualified, r.member]), [
    ['r1', true, true, true], ['r2', true, false, true], ['r3', false, null, true],
  ]);
  assert.equal(rows[0].time, '2026-10-22T10:00:01');
  const pub = rosterRows({ social_task_access_type: 'public' }, votes);
  assert.deepEqual(pub.map((r) => r.subject), ['r1', 'r2']);
});

test('trigger progress: private counts members with a qualified vote, public qualified votes of duration', () => {
  const priv = { social_task_access_type: 'private', org_ids: ['r1', 'r2', 'r3'] };
  const p = triggerProgress(priv, [vote('r1', {}), vote('r2', {}, false), vote('outsider', {})]);
  assert.deepEqual([p.current, p.target], [1, 3]);
  const q = triggerProgress({ social_task_access_type: 'public', duration: 2 }, [vote('a', {}), vote('b', {}), vote('c', {})]);
  assert.deepEqual([q.current, q.target, q.ratio], [3, 2, 1]);
  assert.equal(triggerProgress({ social_task_access_type: 'public' }, []).target, 5);
  assert.equal(triggerProgress({ social_task_access_type: 'other' }, []).target, null);
});

test('votes over time are cumulative and in time order; lifecycle from the documents', () => {
  const series = votesOverTime([vote('b', {}, false, '2026-10-22T10:00:05'), vote('a', {}, true, '2026-10-22T10:00:01.123456')]);
  assert.deepEqual(series.map((p) => [p.all, p.qualified]), [[1, 1], [2, 1]]);
  assert.equal(series[0].time.toISOString(), '2026-10-22T10:00:01.123Z');
  const steps = lifecycle({ creation_time: 'c', scheduled_time: 's', status: 'complete', report_json: { evaluated_at: 'e' } }, []);
  assert.deepEqual(steps.map((s) => [s.step, s.done]), [['created', true], ['scheduled', true], ['started', true], ['first vote', false], ['last vote', false], ['evaluated', true]]);
  assert.equal(steps.find((s) => s.step === 'started').time, null);
  const recorded = lifecycle({ creation_time: 'c', status: 'complete', start_time: 'st', end_time: 'en', report_json: { evaluated_at: 'e' } }, []);
  assert.deepEqual(recorded.map((s) => s.time), ['c', undefined, 'st', null, null, 'en']);
});

test('IRV round deltas: carried, gained, transferred, exhausted per round', () => {
  const rounds = [
    { counts: { a: 4, b: 3, c: 2 }, eliminated: ['c'], exhausted: 0 },
    { counts: { a: 5, b: 3 }, eliminated: [], exhausted: 1 },
  ];
  const d = roundDeltas(rounds);
  assert.equal(d.length, 2);
  assert.deepEqual(d[0].options.map((o) => [o.key, o.votes, o.carried, o.gained, o.eliminated]), [['a', 4, 4, 0, false], ['b', 3, 3, 0, false], ['c', 2, 2, 0, true]]);
  assert.deepEqual(d[1].options.map((o) => [o.key, o.carried, o.gained]), [['a', 4, 1], ['b', 3, 0]]);
  assert.deepEqual([d[1].transferred, d[1].exhausted, d[1].newlyExhausted, d[1].active], [2, 1, 1, 8]);
});

test('IRV rounds counted from ballots, as the builtin does', () => {
  const votes = [rank('1', 'a', 'b'), rank('2', 'a'), rank('3', 'b', 'a'), rank('4', 'c', 'b'), rank('5', 'c'), rank('6', 'b')];
  const { rounds, winners } = computeRounds(['a', 'b', 'c', 'd'], votes);
  // Round 1: a 2, b 2, c 2, d 0 → d out. Round 2: all tied at 2 → they all win.
  assert.deepEqual(rounds[0], { counts: { a: 2, b: 2, c: 2, d: 0 }, eliminated: ['d'], exhausted: 0 });
  assert.deepEqual(winners, ['a', 'b', 'c']);
  const r2 = computeRounds(['a', 'b', 'c'], [rank('1', 'a'), rank('2', 'a'), rank('3', 'b', 'c'), rank('4', 'c', 'b'), rank('5', 'c', 'b')]);
  // a 2, b 1, c 2 → b out; a 2, c 3 (of 5) → c wins.
  assert.deepEqual(r2.rounds.map((r) => r.eliminated), [['b'], []]);
  assert.deepEqual(r2.winners, ['c']);
  assert.deepEqual(computeRounds(['a'], []), { rounds: [], winners: [] });
});

test('pairwise matrix: win/tie/lose cells, Condorcet winner, Schulze strongest paths', () => {
  const keys = ['a', 'b', 'c'];
  const votes = [rank('1', 'a', 'b', 'c'), rank('2', 'a', 'c'), rank('3', 'b', 'a', 'c'), rank('4', 'c')];
  const s = supportFromVotes(keys, votes);
  assert.deepEqual(s.a, { b: 2, c: 3 });
  assert.deepEqual(s.c, { a: 1, b: 2 });
  const cells = matrixCells(keys, s);
  assert.equal(cells[0][0], null);
  assert.deepEqual([cells[0][1].outcome, cells[1][2].outcome, cells[2][1].outcome], ['win', 'tie', 'tie']);
  assert.equal(condorcetWinner(keys, s), 'a');
  // A cycle: no Condorcet winner; Schulze picks by path strength.
  const cyc = { a: { b: 5, c: 2 }, b: { a: 3, c: 6 }, c: { a: 4, b: 2 } };
  assert.equal(condorcetWinner(keys, cyc), null);
  const p = strongestPaths(keys, cyc);
  assert.deepEqual(p, { a: { b: 2, c: 2 }, b: { a: 2, c: 4 }, c: { a: 2, b: 2 } });
  assert.deepEqual(schulzeWinners(keys, p), ['a', 'b']);
});

test('formats: naive times are UTC, CSV quoting, durations', () => {
  assert.equal(parseTime('2026-10-22T10:00:00').toISOString(), '2026-10-22T10:00:00.000Z');
  assert.equal(parseTime('2026-10-22T10:00:00+02:00').toISOString(), '2026-10-22T08:00:00.000Z');
  assert.equal(parseTime('nonsense'), null);
  assert.equal(toCsv(['a', 'b'], [['x,y', 'say "hi"'], [{ k: 1 }, null]]), 'a,b\r\n"x,y","say ""hi"""\r\n"{""k"":1}",\r\n');
  assert.equal(formatDuration(3725), '1 h 2 min');
  assert.equal(formatDuration(-1), 'passed');
});

test('bids: refused bids with their PQT reason, the winner marked, sortable', () => {
  const bids = [
    { bid_id: '1', bid_subject_id: 's1', bid_data: { price_usd: 90, confidence: 0.5, bid_rejected: true, pqt_reason: 'confidence 0.5 < 0.8' }, submission_time: '2026-01-01T00:00:01', is_winner: false },
    { bid_id: '2', bid_subject_id: 's2', bid_data: { price_usd: 120, confidence: 0.9 }, submission_time: '2026-01-01T00:00:02', is_winner: true },
    { bid_id: '3', bid_subject_id: 's3', bid_data: { price_usd: 150 }, submission_time: '2026-01-01T00:00:03', is_winner: false },
  ];
  const { rows, fields } = bidRows(bids);
  assert.deepEqual(fields, ['price_usd', 'confidence']);
  assert.deepEqual(rows.map((r) => [r.subject, r.refused, r.reason, r.winner]), [['s1', true, 'confidence 0.5 < 0.8', false], ['s2', false, null, true], ['s3', false, null, false]]);
  assert.deepEqual(sortBids(rows, 'price_usd', 'desc').map((r) => r.subject), ['s3', 's2', 's1']);
  assert.deepEqual(sortBids(rows, 'confidence', 'asc').map((r) => r.subject), ['s1', 's2', 's3']);
  assert.deepEqual(sortBids(rows, 'subject', 'desc').map((r) => r.subject), ['s3', 's2', 's1']);
  assert.equal(winnerOf(bids), 's2');
  const closed = rosterProgress({ bid_job_mode: 'closed', bid_job_subject_ids: ['s1', 's2', 's3', 's4'] }, bids);
  assert.deepEqual([closed.current, closed.target], [3, 4]);
  const open = rosterProgress({ bid_job_mode: 'open', bid_job_subject_ids: ['s2'], bid_job_max_subjects: 5 }, bids);
  assert.deepEqual([open.current, open.target], [1, 5]);
  assert.equal(rosterProgress({ bid_job_mode: 'open', bid_job_subject_ids: [] }, []).target, null);
  assert.equal(roundTripFailed({ task_result: { success: true } }), false);
  assert.equal(roundTripFailed({ task_result: { success: false } }), true);
  assert.equal(roundTripFailed({ task_result: { error: 'delegate timed out' } }), true);
});

test('exchange board: one column per status, in lifecycle order, unknown statuses last', () => {
  const cols = boardColumns([
    { task_id: '1', task_assignment_status: 'completed' }, { task_id: '2', task_assignment_status: 'bidding' },
    { task_id: '3', task_assignment_status: 'odd' }, { task_id: '4', task_assignment_status: 'completed' },
  ]);
  assert.deepEqual(cols.map((c) => [c.status, c.tasks.length]), [
    ['pending', 0], ['assigned', 0], ['bidding', 1], ['completed', 2], ['failed', 0], ['rejected', 0], ['odd', 1],
  ]);
  const steps = taskSteps({ task_assignment_type: 'bidding', task_assignment_status: 'completed', taski_creation_time: 't0', task_metadata: { bid_job_id: 'j' }, task_output: { created_time: 't1' } });
  assert.deepEqual(steps.map((x) => [x.step, x.done, x.time ?? null]), [['created', true, 't0'], ['bidding', true, null], ['completed', true, 't1']]);
  const failed = taskSteps({ task_assignment_type: 'direct', task_assignment_status: 'failed', taski_creation_time: 't0', task_output: { error: 'x' } });
  assert.deepEqual(failed.map((x) => [x.step, x.done]), [['created', true], ['assigned', true], ['failed', true]]);
  const rejected = taskSteps({ task_assignment_type: 'open', task_assignment_status: 'rejected', taski_creation_time: 't0' });
  assert.deepEqual(rejected.map((x) => [x.step, x.done]), [['created', true], ['assigned', false], ['rejected', true]]);
  const pending = taskSteps({ task_assignment_type: 'open', task_assignment_status: 'pending', taski_creation_time: 't0' });
  assert.deepEqual(pending.map((x) => [x.step, x.done]), [['created', true], ['assigned', false], ['completed', false]]);
});

test('the live stream URL: config.json\'s, else the API\'s or the page\'s origin, with the token as access_token', async () => {
  const { liveStreamUrl } = await import('../site/live.js');
  const page = new URL('https://console.example.com/console/');
  assert.equal(liveStreamUrl({ live_stream_url: '', api_base_url: '' }, page, ''), 'wss://console.example.com/live-stream');
  assert.equal(liveStreamUrl({ live_stream_url: '', api_base_url: 'http://127.0.0.1:8080' }, page, ''), 'ws://127.0.0.1:8080/live-stream');
  assert.equal(liveStreamUrl({ live_stream_url: 'wss://ws.example.com/live', api_base_url: '' }, page, 'a.b+c'), 'wss://ws.example.com/live?access_token=a.b%2Bc');
  assert.equal(liveStreamUrl({ live_stream_url: 'wss://ws.example.com/live?x=1' }, page, 't'), 'wss://ws.example.com/live?x=1&access_token=t');
});
