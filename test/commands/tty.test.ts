// On a terminal: `login` reads the key from a hidden prompt and never echoes it; `import` draws its
// progress line (only when the terminal reports its width — ora spins at 100 % CPU on 0 columns,
// so the pty is given one with stty). A real pty comes
// from util-linux `script`; the test is skipped, saying so, where it is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cliEnv, runOnTerminal, tempDir } from '../helpers/cli.js';

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

test('login on a TTY prompts without echo and stores the key 0600', { skip: hasScript ? false : 'util-linux script(1) is not installed' }, async (t) => {
  const dir = tempDir(t);
  const key = `sk_live_${'t'.repeat(16)}${Date.now().toString(36)}`;
  const child = spawn('script', ['-qec', `${process.execPath} ${BIN} login --no-verify --base-url https://api.example.com/api/v1`, '/dev/null'], {
    env: cliEnv({ CALLCTL_CONFIG_DIR: dir, TERM: 'dumb' }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    screen += d;
    if (screen.includes('Secret key (input hidden): ') && !child.stdin.writableEnded) child.stdin.end(`${key}\r`);
  });
  const code = await new Promise((done) => child.on('close', done));
  assert.equal(code, 0, screen);
  assert.match(screen, /Secret key \(input hidden\): /);
  assert.ok(!screen.includes(key), `the key was echoed: ${screen}`);
  assert.match(screen, new RegExp(`logged in: profile "default", key sk_live_…${key.slice(-4)}`));
  assert.equal(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default.apiKey, key);
  assert.equal(statSync(join(dir, 'config.json')).mode & 0o777, 0o600);
});

test('import on a TTY draws its progress line, then the summary', { skip: hasScript ? false : 'util-linux script(1) is not installed' }, async (t) => {
  const { startTestSandbox } = await import('../helpers/sandbox.js');
  const { writeLeads } = await import('../helpers/leads.js');
  const sb = await startTestSandbox(t, { rateLimit: 20, burst: 5 });
  const file = writeLeads(tempDir(t), 40);
  const { code, screen } = await runOnTerminal(['import', file], { CALLCTL_CONFIG_DIR: tempDir(t), CALLCTL_BASE_URL: sb.baseUrl, CALLCTL_API_KEY: sb.secretKey });
  assert.equal(code, 0, screen);
  assert.match(screen, /\d+ of ~?\d+ rows \(\d+ %\), 0 rejected, [\d.]+ rows\/s, \d+ left, ETA \d+ s/);
  assert.match(screen, /created\s+40/);
  assert.equal(sb.contacts().length, 40);
});
