// The files callctl keeps, whatever the disk or the file system does (docs/network.md, "Bounds"): a
// key kept where other users can read or replace it is refused as ssh refuses such a private key,
// naming the chmod (exit 3, nothing sent); a disk that fills up under a running import is one line
// naming the file and its disk, the journal whole lines, and --resume exact once there is space.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { assertEachOnce, writeLeads } from '../helpers/leads.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';

const KEY = `sk_live_${'f'.repeat(24)}`;

test('a config.json holding the key that others can read (0644, 0666), or a folder others can write (0777), is refused naming the chmod; once private, it works', async (t) => {
  const server = await scriptedServer(t, (_hit, res) => json(res, 200, { data: [], hasMore: false }));
  const dir = join(tempDir(t), 'callctl config');
  mkdirSync(dir, { mode: 0o700 });
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ profiles: { default: { baseUrl: server.baseUrl, apiKey: KEY } } }));
  const env = { CALLCTL_CONFIG_DIR: dir };
  for (const mode of [0o644, 0o666]) {
    chmodSync(file, mode);
    const r = await runCli(['contacts', 'ls'], { env });
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.stderr, `callctl: ${file} holds the secret key and is open to other users (mode 0${mode.toString(8)}): refused (make it private: chmod 600 '${file}')\n`);
  }
  const status = await runCli(['auth', 'status', '--json'], { env });
  assert.equal(status.code, 3);
  assert.match(JSON.parse(status.stdout).error, /is open to other users \(mode 0666\): refused \(make it private: chmod 600/);

  chmodSync(file, 0o600);
  chmodSync(dir, 0o777);
  const folder = await runCli(['contacts', 'ls'], { env });
  assert.equal(folder.code, 3, folder.stderr);
  assert.equal(folder.stderr, `callctl: the folder of ${file}, which holds the secret key, can be written by other users (mode 0777): refused (make it private: chmod 700 '${dir}')\n`);
  assert.equal(server.hits.length, 0, 'nothing sent');

  chmodSync(dir, 0o700);
  const ok = await runCli(['contacts', 'ls', '--json'], { env });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(server.hits.length, 1);
  // A key from the environment reads nothing of the file: the file's mode is not its business.
  chmodSync(file, 0o644);
  const fromEnv = await runCli(['contacts', 'ls', '--json'], { env: { ...env, CALLCTL_API_KEY: KEY, CALLCTL_BASE_URL: server.baseUrl } });
  assert.equal(fromEnv.code, 0, fromEnv.stderr);
});

/** A small tmpfs of the test's own (root only), unmounted when the test ends; undefined where mounting is not allowed. */
function smallDisk(t: { after(fn: () => unknown): void }, size: string): { dir: string; resize(size: string): void } | undefined {
  const base = mkdtempSync(join(tmpdir(), 'callctl-disk-'));
  const dir = join(base, 'disk');
  mkdirSync(dir);
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir]).status === 0;
  t.after(() => {
    if (mounted) spawnSync('umount', ['-l', dir]);
    rmSync(base, { recursive: true, force: true });
  });
  if (!mounted) return undefined;
  return { dir, resize: (s) => assert.equal(spawnSync('mount', ['-o', `remount,size=${s}`, dir]).status, 0) };
}

test('a full disk, before or under an import: one line naming the file and its disk, the summary, the journal whole lines; --resume exact once there is space', async (t) => {
  const disk = smallDisk(t, '8k');
  if (!disk) return t.skip('mounting a tmpfs needs root (CI runs as root)');
  const stored = new Set<string>();
  const server = await scriptedServer(t, (hit, res) => {
    const phone = JSON.parse(hit.body).phone as string;
    const known = stored.has(phone);
    stored.add(phone);
    json(res, known ? 200 : 201, { id: `c_${phone}`, phone });
  });
  const file = writeLeads(tempDir(t), 300);
  const env = { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: disk.dir };

  // Full before the job starts: one line, nothing sent, no lock left.
  mkdirSync(join(disk.dir, 'journals'));
  const filler = join(disk.dir, 'filler');
  assert.throws(() => writeFileSync(filler, Buffer.alloc(64 * 1024)), /ENOSPC/);
  const none = await runCli(['import', file], { env });
  assert.equal(none.code, 1, none.stderr);
  assert.match(none.stderr, new RegExp(`^callctl: no space left on the disk of ${disk.dir}, writing the (lock|journal) ${disk.dir}/journals/[0-9a-f]+\\.(lock|jsonl) \\(ENOSPC\\) \\(free some space there, then run the same command again\\)$`, 'm'));
  assert.equal(server.hits.length, 0);
  assert.deepEqual(readdirSync(join(disk.dir, 'journals')).filter((n) => n.endsWith('.lock')), []);
  rmSync(filler);

  const full = await runCli(['import', file, '--rate', '2000'], { env });
  assert.equal(full.code, 1, full.stderr);
  const lines = full.stderr.trim().split('\n');
  assert.match(lines.at(-1)!, new RegExp(`^callctl: no space left on the disk of ${disk.dir}, writing the journal ${disk.dir}/journals/[0-9a-f]+\\.jsonl \\(ENOSPC\\) \\(free some space there, then run the same command with --resume\\)$`));
  assert.ok(lines.some((l) => l.startsWith('stopped import of ')), full.stderr);
  assert.doesNotMatch(full.stderr, /unexpected error/);

  const journals = readdirSync(join(disk.dir, 'journals'));
  assert.deepEqual(journals.filter((n) => n.endsWith('.lock')), [], 'the lock let go');
  const open = journals.filter((n) => /^[0-9a-f]+\.jsonl$/.test(n));
  assert.equal(open.length, 1, journals.join(' '));
  const text = readFileSync(join(disk.dir, 'journals', open[0]!), 'utf8');
  assert.ok(text.endsWith('\n'), 'whole lines');
  const recorded = text.trim().split('\n').map((l) => JSON.parse(l) as { s?: string }).filter((l) => l.s === 'created').length;
  assert.ok(recorded > 0 && recorded < 300, `${recorded} rows recorded before the disk filled`);

  disk.resize('1m');
  const again = await runCli(['import', file, '--resume', '--json'], { env });
  assert.equal(again.code, 0, again.stderr);
  const s = JSON.parse(again.stdout);
  assert.equal(s.skipped, recorded, 'what the journal holds is not sent again');
  // The rows on the wire when the disk filled were stored: their retries meet them, never `matched`
  // (this server gives no creation time, so they are `uncertain`: docs/people.md).
  assert.equal(s.matched, 0, again.stderr);
  assert.equal(s.created + (s.uncertain ?? 0), 300 - recorded);
  assert.equal(s.failed, 0);
  assertEachOnce([...stored], 300);
});
