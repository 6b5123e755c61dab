// Argument handling in-process: main(argv, deps) with fake deps (no process, no network), and the
// typed options each verb is given. Fast, and beside the spawned end-to-end tests, not instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { main } from '../../src/main.js';
import type { Deps } from '../../src/deps.js';
import { importOptions } from '../../src/commands/import/options.js';
import { outcomeOptions } from '../../src/commands/calls/outcome-options.js';
import { rmOptions } from '../../src/commands/contacts/rm-options.js';
import { sandboxOptions } from '../../src/commands/sandbox/options.js';
import { UsageError } from '../../src/errors.js';
import { tempDir } from '../helpers/cli.js';

function fakeDeps(t: { after(fn: () => unknown): void }): Deps & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  return {
    io: { stdin: new PassThrough() as unknown as Deps['io']['stdin'], stdout: stdout as unknown as Deps['io']['stdout'], stderr: stderr as unknown as Deps['io']['stderr'] },
    env: { CALLCTL_CONFIG_DIR: tempDir(t) },
    cwd: process.cwd(),
    now: () => 1_800_000_000_000,
    sleep: async () => undefined,
    onSignal: () => () => undefined,
    out: () => out,
    err: () => err,
  };
}

test('usage errors of the typed options: exit 2 and one line, before any code of the verb runs', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [['calls', 'outcome', 'call_1', 'booked_job', '--from', 'x.csv'], /either a call and its outcome, or --from/],
    [['calls', 'outcome', 'call_1', 'booked_job', '--dry-run'], /--dry-run applies only with --from/],
    [['calls', 'outcome', 'call_1'], /give a call id and an outcome/],
    [['calls', 'outcome', 'call_1', 'booked_job', '--currency', 'USD'], /--currency without --value/],
    [['contacts', 'rm', 'ct_1', '--phone', '+447400100000'], /give one of: an id, --phone, --from/],
    [['contacts', 'rm', '--phone', '+447400100000', '--from', 'x.csv'], /give one of/],
    [['contacts', 'rm', 'ct_1', '--receipts', 'r.jsonl'], /--receipts applies only with --phone or --from/],
    [['contacts', 'rm'], /give the id of the contact to erase/],
    [['import', 'x.csv', '--existing', 'maybe'], /--existing/],
  ];
  for (const [argv, message] of cases) {
    const deps = fakeDeps(t);
    const code = await main(argv, deps);
    assert.equal(code, 2, `${argv.join(' ')}: ${deps.err()}`);
    assert.match(deps.err(), message, argv.join(' '));
    assert.equal(deps.err().trim().split('\n').length, 1, deps.err());
  }
});

test('the typed options each verb receives', () => {
  assert.deepEqual(importOptions(['leads.csv'], { map: ['Cell=phone'], dryRun: true, existing: 'skip', country: 'GB', sheet: 'March' }), {
    file: 'leads.csv', map: ['Cell=phone'], dryRun: true, resume: false, restart: false, allowNoPhone: false, checkExisting: false, existing: 'skip', country: 'GB', sheet: 'March',
  });
  assert.deepEqual(outcomeOptions(['call_1', 'booked_job'], { value: 250, currency: 'usd' }), { kind: 'one', callId: 'call_1', outcome: 'booked_job', value: 250, currency: 'usd' });
  assert.deepEqual(outcomeOptions([], { from: 'o.csv', resume: true, currency: 'EUR' }), { kind: 'file', file: 'o.csv', map: [], dryRun: false, resume: true, restart: false, currency: 'EUR' });
  const rm = rmOptions([], { from: 'r.csv', confirm: true, country: 'GB' });
  assert.equal(rm.kind, 'requests');
  assert.deepEqual(rmOptions(['ct_1'], { confirm: true }), { kind: 'one', id: 'ct_1', confirm: true });
  assert.throws(() => rmOptions(['ct_1'], { dryRun: true }), UsageError);
  const sb = sandboxOptions([], { port: 0, limiter: 'window', window: 10_000, rateLimit: 30, ratelimitHeaders: 'none' });
  assert.deepEqual([sb.port, sb.limiter, sb.windowMs, sb.rateLimit, sb.rateLimitHeaders, sb.burst], [0, 'window', 10_000, 30, 'none', undefined]);
});
