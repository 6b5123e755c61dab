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
import { callsLsOptions } from '../../src/commands/calls/ls-options.js';
import { callsGetOptions, callsSummaryOptions } from '../../src/commands/calls/options.js';
import { contactsLsOptions } from '../../src/commands/contacts/ls-options.js';
import { contactsGetOptions, dupesOptions, findOptions } from '../../src/commands/contacts/options.js';
import { addOptions, editOptions } from '../../src/commands/contacts/fields-options.js';
import { configOptions } from '../../src/commands/config/options.js';
import { loginOptions } from '../../src/commands/login/options.js';
import { authStatusOptions } from '../../src/commands/auth/options.js';
import { actionParts, type Bind } from '../../src/commands/lazy.js';
import { buildProgram } from '../../src/program.js';
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
    [['contacts', 'rm', 'ct_1', '--phone', '+447400100000'], /give one of: an id, --phone, --email, --from/],
    [['contacts', 'rm', '--phone', '+447400100000', '--email', 'a@example.com'], /give one of/],
    [['contacts', 'rm', '--phone', '+447400100000', '--from', 'x.csv'], /give one of/],
    [['contacts', 'rm', 'ct_1', '--dry-run'], /--dry-run applies only with --phone, --email or --from/],
    [['contacts', 'find', '--name', '  '], /--name holds no name/],
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
    file: 'leads.csv', map: ['Cell=phone'], dryRun: true, resume: false, restart: false, allowNoPhone: false, keepOtherPhones: false, checkExisting: false, existing: 'skip', country: 'GB', sheet: 'March',
  });
  assert.deepEqual(outcomeOptions(['call_1', 'booked_job'], { value: 250, currency: 'usd' }), { kind: 'one', callId: 'call_1', outcome: 'booked_job', value: 250, currency: 'usd' });
  assert.deepEqual(outcomeOptions([], { from: 'o.csv', resume: true, currency: 'EUR' }), { kind: 'file', file: 'o.csv', map: [], dryRun: false, resume: true, restart: false, currency: 'EUR' });
  const rm = rmOptions([], { from: 'r.csv', confirm: true, country: 'GB' });
  assert.equal(rm.kind, 'requests');
  assert.deepEqual(rmOptions(['ct_1'], { confirm: true }), { kind: 'one', id: 'ct_1', confirm: true, receipts: undefined, purgeLocal: false });
  assert.deepEqual(rmOptions(['ct_1'], { confirm: true, receipts: 'r.jsonl', purgeLocal: true }), { kind: 'one', id: 'ct_1', confirm: true, receipts: 'r.jsonl', purgeLocal: true });
  assert.throws(() => rmOptions(['ct_1'], { dryRun: true }), UsageError);
  const sb = sandboxOptions([], { port: 0, limiter: 'window', window: 10_000, rateLimit: 30, ratelimitHeaders: 'none' });
  assert.deepEqual([sb.port, sb.limiter, sb.windowMs, sb.rateLimit, sb.rateLimitHeaders, sb.burst], [0, 'window', 10_000, 30, 'none', undefined]);
});

/** Commander's positionals and options for `argv`, through the real program, no verb run. */
async function parsed(argv: string[]): Promise<[string[], Record<string, unknown>]> {
  let got: [string[], Record<string, unknown>] | undefined;
  const bind: Bind = () => async (...actionArgs) => {
    const { args, opts } = actionParts(actionArgs);
    got = [args, opts];
  };
  const io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() } as unknown as Deps['io'];
  await buildProgram(io, bind).parseAsync(argv, { from: 'user' });
  assert.ok(got, `${argv.join(' ')} reached its action`);
  return got;
}

test('the typed options of the smaller verbs, from real argv', async () => {
  assert.deepEqual(loginOptions(...(await parsed(['login']))), { verify: true, insecureStorage: false });
  assert.deepEqual(loginOptions(...(await parsed(['login', '--no-verify']))), { verify: false, insecureStorage: false });
  assert.deepEqual(loginOptions(...(await parsed(['auth', 'login', '--insecure-storage']))), { verify: true, insecureStorage: true });
  assert.deepEqual(authStatusOptions(...(await parsed(['auth', 'status', '--all']))), { all: true });
  assert.deepEqual(authStatusOptions(...(await parsed(['auth', 'status']))), { all: false });

  assert.deepEqual(contactsLsOptions(...(await parsed(['contacts', 'ls', '--page', '2', '--limit', '10', '--tag', ' VIP ', '--tag', 'cold', '--status', 'Customer']))), {
    page: 2, limit: 10, all: false, max: undefined, tags: ['vip', 'cold'], status: 'customer',
  });
  assert.deepEqual(contactsGetOptions((await parsed(['contacts', 'get', 'ct_1']))[0]), { id: 'ct_1' });
  assert.deepEqual(addOptions(...(await parsed(['contacts', 'add', '--first-name', 'Ada', '--zip-code', 'N1', '--tag', 'vip', '--country', 'GB', '--data', '{"notes":"x"}']))), {
    fields: { data: '{"notes":"x"}', flags: { firstName: 'Ada', zipCode: 'N1' }, tags: ['vip'], country: 'GB' },
  });
  assert.deepEqual(editOptions(...(await parsed(['contacts', 'edit', 'ct_1', '--status', 'customer', '--add-tag', ' vip ', '--add-tag', ' ', '--remove-tag', 'cold']))), {
    id: 'ct_1', fields: { data: undefined, flags: { status: 'customer' }, tags: undefined, country: undefined }, addTag: ['vip'], removeTag: ['cold'],
  });
  assert.deepEqual(findOptions(...(await parsed(['contacts', 'find', '--phone', '020 7946 0958', '--country', 'GB']))), { by: 'phone', phone: '020 7946 0958', country: 'GB' });
  assert.deepEqual(findOptions(...(await parsed(['contacts', 'find', '--email', 'Ada@Example.com']))), { by: 'email', email: 'Ada@Example.com', country: undefined });
  assert.deepEqual(findOptions(...(await parsed(['contacts', 'find', '--name', 'zoe muller']))), { by: 'name', name: 'zoe muller', country: undefined });
  assert.deepEqual(dupesOptions(...(await parsed(['contacts', 'dupes', '--country', 'GB', '--fix']))), { country: 'GB', fix: true });

  assert.deepEqual(callsLsOptions(...(await parsed(['calls', 'ls', '--all', '--max', '5', '--outcome', ' booked_job ', '--since', '2026-10-01', '--until', '2026-10-31']))), {
    page: undefined, limit: undefined, all: true, max: 5, outcome: 'booked_job', since: Date.parse('2026-10-01T00:00:00Z'), until: Date.parse('2026-11-01T00:00:00Z'), contact: undefined, country: undefined,
  });
  assert.deepEqual(callsLsOptions(...(await parsed(['calls', 'list', '--contact', ' 07400 100001 ', '--country', 'GB']))), {
    page: undefined, limit: undefined, all: false, max: undefined, outcome: undefined, since: undefined, until: undefined, contact: '07400 100001', country: 'GB',
  });
  await assert.rejects(async () => callsLsOptions(...(await parsed(['calls', 'ls', '--country', 'GB']))), /--country applies only with --contact/);
  assert.deepEqual(callsGetOptions((await parsed(['calls', 'get', 'call_1']))[0]), { callId: 'call_1' });
  assert.deepEqual(callsSummaryOptions(...(await parsed(['calls', 'summary', '--by', ' channel ']))), { by: 'channel' });
  assert.deepEqual(callsSummaryOptions(...(await parsed(['calls', 'summary', '--by', ' ']))), { by: undefined });

  assert.deepEqual(configOptions((await parsed(['config', 'get', 'country']))[0]), { action: 'get', key: 'country', value: undefined });
  assert.deepEqual(configOptions((await parsed(['config', 'set', 'currency', 'EUR']))[0]), { action: 'set', key: 'currency', value: 'EUR' });
  assert.deepEqual(configOptions((await parsed(['config', 'unset', 'rate']))[0]), { action: 'unset', key: 'rate', value: undefined });
  assert.deepEqual(configOptions((await parsed(['config', 'list']))[0]), { action: 'list', key: undefined, value: undefined });
  assert.deepEqual(configOptions((await parsed(['config', 'path']))[0]), { action: 'path', key: undefined, value: undefined });
  assert.throws(() => configOptions(['reset']), UsageError);
});

test('usage errors of the smaller verbs: exit 2 and the one line docs/cli.md promises, nothing on stdout', async (t) => {
  const cases: Array<[string[], string]> = [
    [['login', '--key', 'sk_live_x'], "callctl: unknown option '--key' (see callctl login --help)"],
    [['contacts', 'ls', '--max', '0'], "callctl: option '--max <n>' argument '0' is invalid. expected a whole number ≥ 1 (see callctl contacts ls --help)"],
    [['contacts', 'get'], "callctl: missing required argument 'id' (see callctl contacts get --help)"],
    [['contacts', 'add'], 'callctl: no field given (e.g. --first-name Ada --phone "+44 20 7946 0958")'],
    [['contacts', 'edit', 'ct_1', '--tag', 'a', '--add-tag', 'b'], 'callctl: --tag (or tags in --data) sets exactly the tags given; it cannot be combined with --add-tag/--remove-tag (use one or the other)'],
    [['contacts', 'find'], 'callctl: give --phone, --email or --name (one of them) (e.g. callctl contacts find --phone "+44 7911 123456")'],
    [['contacts', 'find', '--phone', '+447400100000', '--email', 'a@b.co'], 'callctl: give --phone, --email or --name (one of them) (e.g. callctl contacts find --phone "+44 7911 123456")'],
    [['contacts', 'dupes', '--country', 'ZZ'], 'callctl: --country ZZ is not a region code (use ISO 3166 alpha-2, e.g. GB or US)'],
    [['calls', 'ls', '--since', '2026-10-05', '--until', '2026-10-01'], 'callctl: --since 2026-10-05 is not before --until 2026-10-01'],
    [['calls', 'ls', '--until', 'soon'], 'callctl: --until soon is not a date (use 2026-10-01 or an ISO 8601 time such as 2026-10-01T09:00:00Z)'],
    [['calls', 'get'], "callctl: missing required argument 'callId' (see callctl calls get --help)"],
    [['calls', 'summary', '--by'], "callctl: option '--by <field>' argument missing (see callctl calls summary --help)"],
    [['config', 'get', 'colour'], 'callctl: unknown setting "colour" (one of baseUrl, country, currency, outcomes, rate, concurrency, jobsKept, apiKey)'],
    [['config', 'set', 'country'], 'callctl: config set country needs a value'],
    [['config', 'unset'], 'callctl: which setting? (one of baseUrl, country, currency, outcomes, rate, concurrency, jobsKept, apiKey)'],
    [['config', 'list', '--format', 'csv'], 'callctl: --format csv does not apply to callctl config list: it prints settings as key=value lines, or JSON with --json (use --format table or --format json, or leave it out)'],
    [['config', 'path', '--json'], 'callctl: --format json does not apply to callctl config path: it prints a path (leave it out)'],
  ];
  for (const [argv, line] of cases) {
    const deps = fakeDeps(t);
    const code = await main(argv, deps);
    assert.equal(code, 2, `${argv.join(' ')}: ${deps.err()}`);
    assert.equal(deps.err(), `${line}\n`, argv.join(' '));
    assert.equal(deps.out(), '', argv.join(' '));
  }
});
