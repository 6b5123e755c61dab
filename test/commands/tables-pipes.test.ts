// Tables as gh and kubectl print them (one line a row, ids, phones and e-mails never cut, nothing
// cut in a pipe), and a closed stdout (`| head`) that ends any command quietly: exit 0, no stack,
// no further requests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cliEnv, runCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
const LONG_EMAIL = 'augusta.ada.king-noel.countess@lovelace-analytical-engines.example.com';
const LONG_CITY = 'Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch';

/** Runs `callctl <args> | <reader>` in bash; the exit code is callctl's own, stderr its own. */
function pipeline(args: string[], reader: string, env: Record<string, string | undefined>, dir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const errFile = join(dir, 'stderr.txt');
  const child = spawn('bash', ['-c', `"${process.execPath}" "${BIN}" ${quoted} 2>"${errFile}" | ${reader}; exit "\${PIPESTATUS[0]}"`], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr: readFileSync(errFile, 'utf8') })));
}

async function longContact(sb: Awaited<ReturnType<typeof startTestSandbox>>): Promise<{ id: string; phone: string }> {
  const r = await sandboxRequest(sb, 'POST', '/contacts', {
    body: { firstName: 'Augusta Ada', lastName: 'King-Noel, Countess of Lovelace', phone: '+447700900123', email: LONG_EMAIL, city: LONG_CITY, tags: ['vip', 'analytical-engine', 'expo-2026'] },
  });
  assert.equal(r.status, 201);
  return { id: r.body.id, phone: r.body.phone };
}

test('piped (even with COLUMNS=80), a table is never cut: one line a row, no ruled lines', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 3 });
  const { id, phone } = await longContact(sb);
  const r = await runCli(['contacts', 'ls'], { env: envFor(sb, t, { COLUMNS: '80' }) });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 1 + 4, 'a header and one line a contact');
  assert.match(lines[0]!, /^ID\s+First\s+Last\s+Phone\s+Email\s+City\s+Status\s+Tags$/);
  const row = lines.find((l) => l.startsWith(id));
  assert.ok(row, `the id whole at the start of its row: ${r.stdout}`);
  for (const whole of [phone, LONG_EMAIL, LONG_CITY, 'King-Noel, Countess of Lovelace', 'vip;analytical-engine;expo-2026']) assert.ok(row.includes(whole), `${whole} in ${row}`);
  assert.doesNotMatch(r.stdout, /[┌┐└┘├┤┬┴┼│─…]/, 'no borders, no rules, nothing cut');
  const calls = await runCli(['calls', 'ls'], { env: envFor(sb, t, { COLUMNS: '80' }) });
  assert.equal(calls.code, 0, calls.stderr);
  assert.equal(calls.stdout.trimEnd().split('\n').length, 1 + 3);
  for (const c of sb.calls()) assert.match(calls.stdout, new RegExp(`^${c.id}\\s+${c.startedAt.replace(/\./g, '\\.')}\\s+\\w+\\s+\\${c.from}\\s`, 'm'));
});

test('on an 80-column terminal, ids, phones and e-mails stay whole; other columns give way', { skip: hasScript ? false : 'util-linux script(1) is not installed' }, async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 3 });
  const { id, phone } = await longContact(sb);
  const env = envFor(sb, t, { TERM: 'dumb' });
  const child = spawn('script', ['-qec', `stty cols 80 rows 40; "${process.execPath}" "${BIN}" contacts ls; "${process.execPath}" "${BIN}" calls ls`, '/dev/null'], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (screen += d));
  const code = await new Promise((done) => child.on('close', done));
  assert.equal(code, 0, screen);
  const lines = screen.replace(/\r/g, '').split('\n').filter((l) => l.trim() !== '');
  const row = lines.find((l) => l.startsWith(id));
  assert.ok(row, `the id whole at the start of its row:\n${screen}`);
  assert.ok(row.includes(phone), 'the phone whole');
  assert.ok(row.includes(LONG_EMAIL), 'the e-mail whole');
  assert.ok(!row.includes(LONG_CITY) && row.includes('…'), `the city gave way: ${row}`);
  for (const c of sb.calls()) assert.ok(lines.some((l) => l.startsWith(`${c.id}  `) && l.includes(c.from) && l.includes(c.startedAt.slice(0, 10))), `call ${c.id} and its number whole, its start keeps its date`);
  const callLines = lines.filter((l) => l.startsWith('call_') || /^ID\s+Started/.test(l));
  for (const l of callLines) assert.ok([...l].length <= 80, `fits 80 columns: ${l}`);
  assert.doesNotMatch(screen, /[┌├└│─]/);
});

test('a closed stdout ends the command quietly: exit 0, no stack, and no more pages are requested', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 500 });
  const dir = tempDir(t);
  const env = envFor(sb, t);
  const ls = await pipeline(['contacts', 'ls', '--all', '--limit', '5'], 'head -3', env, dir);
  assert.equal(ls.code, 0, ls.stderr);
  assert.equal(ls.stderr, '');
  assert.equal(ls.stdout.trimEnd().split('\n').length, 3);
  const pagesRead = sb.stats().byRoute['GET /contacts'] ?? 0;
  assert.ok(pagesRead >= 1 && pagesRead < 100, `paging stopped early: ${pagesRead} of 100 pages`);

  const api = await pipeline(['api', 'GET', '/calls', '--paginate', '-f', 'limit=5'], 'head -1', env, dir);
  assert.equal(api.code, 0, api.stderr);
  assert.equal(api.stderr, '');
  assert.ok((sb.stats().byRoute['GET /calls'] ?? 0) < 100, 'api --paginate stopped too');

  for (const args of [['--help'], ['contacts', 'ls', '--help'], ['contacts', 'ls', '--all', '--format', 'csv']]) {
    const r = await pipeline(args, 'head -1', env, dir);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr, '', args.join(' '));
    assert.equal(r.stdout.split('\n').length, 2, args.join(' '));
  }
});

test('rows that come a few at a time line up as one table: find’s matches, a filter’s (the first phone shorter than the next)', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const env = envFor(sb, t, { CALLCTL_CONFIG_DIR: tempDir(t) });
  // Found on separate pages: a page of others between them.
  await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Zoë', phone: '07700 900123', email: 'z@example.com', tags: ['vip'] } });
  for (let i = 0; i < 120; i++) await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: `Other${i}`, phone: `+4474009${String(10000 + i)}` } });
  await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Zoë', phone: '+44 (0) 7700 900 123', email: 'zoe.muller@example.com', tags: ['vip'] } });
  for (const args of [['contacts', 'find', '--phone', '+447700900123', '--country', 'GB'], ['contacts', 'ls', '--tag', 'vip']]) {
    const r = await runCli(args, { env });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 3, r.stdout);
    // The phone, e-mail and tags of each row start where their headers do.
    const header = lines[0]!;
    const [short, long] = [lines.find((l) => l.includes('07700 900123'))!, lines.find((l) => l.includes('+44 (0) 7700'))!];
    assert.deepEqual(
      [short.indexOf('07700'), short.indexOf('z@'), short.indexOf('vip'), long.indexOf('+44'), long.indexOf('zoe.'), long.indexOf('vip')],
      [header.indexOf('Phone'), header.indexOf('Email'), header.indexOf('Tags'), header.indexOf('Phone'), header.indexOf('Email'), header.indexOf('Tags')],
      `out of line:\n${r.stdout}`,
    );
  }
});
