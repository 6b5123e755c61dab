#!/usr/bin/env node
// `npm run demo`: starts the sandbox (the local API) in this process and runs an operator's
// session against it through the real CLI — import a lead list (after a preview), list, write
// outcomes back (one, then a file), see the jobs and what undoing the import would do, total the
// outcomes, find a person and erase them.
// The key travels in the environment, as an operator's would; nothing leaves the machine.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSandbox } from '../dist/sandbox/index.cjs';

const root = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'callctl-demo-'));
const sandbox = await startSandbox({ port: 0, seed: 6, rateLimit: 20 });
const env = { ...process.env, CALLCTL_BASE_URL: sandbox.baseUrl, CALLCTL_API_KEY: sandbox.secretKey, CALLCTL_CONFIG_DIR: join(work, 'config') };
copyFileSync(join(root, 'fixtures/leads-demo.csv'), join(work, 'leads.csv'));

function callctl(...args) {
  process.stdout.write(`\n$ callctl ${args.map((a) => (/[\s"]/.test(a) ? `'${a}'` : a)).join(' ')}\n`);
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(root, 'bin/callctl.js'), ...args], { cwd: work, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('close', (code) => {
      if (code !== 0) process.stdout.write(`(exit ${code})\n`);
      done(code);
    });
  });
}

/** Runs callctl quietly and returns its stdout (for an id the next step needs). */
function output(...args) {
  return new Promise((done) => {
    let out = '';
    const child = spawn(process.execPath, [join(root, 'bin/callctl.js'), ...args], { cwd: work, env, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', (d) => (out += d));
    child.on('close', () => done(out));
  });
}

try {
  console.log(`sandbox running at ${sandbox.baseUrl} (rate limit 20/s); CALLCTL_API_KEY holds its secret key`);
  await callctl('import', 'leads.csv', '--country', 'GB');
  process.stdout.write(`\n$ cat leads.csv.rejects.csv\n${readFileSync(join(work, 'leads.csv.rejects.csv'), 'utf8')}`);
  await callctl('import', 'leads.csv', '--country', 'GB', '--dry-run');
  await callctl('import', 'leads.csv', '--country', 'GB', '--quiet', '--json');
  await callctl('contacts', 'add', '--first-name', 'Ada', '--last-name', 'Lovelace', '--phone', '020 7946 0958', '--country', 'GB', '--tag', 'vip');
  await callctl('contacts', 'ls', '--limit', '5');
  await callctl('calls', 'ls', '--limit', '3');
  await callctl('calls', 'outcome', 'call_00001', 'booked_job', '--value', '250', '--currency', 'GBP');
  writeFileSync(join(work, 'outcomes.csv'), 'Call ID,Outcome,Value,Currency\ncall_00002,quote_sent,1200.50,gbp\ncall_00003,no_answer,,\ncall_00004,Booked Job,99,GBP\n');
  process.stdout.write(`\n$ cat outcomes.csv\n${readFileSync(join(work, 'outcomes.csv'), 'utf8')}`);
  await callctl('calls', 'outcome', '--from', 'outcomes.csv');
  process.stdout.write(`\n$ cat outcomes.csv.rejects.csv\n${readFileSync(join(work, 'outcomes.csv.rejects.csv'), 'utf8').replace(/^\ufeff/, '')}`);
  await callctl('jobs', 'ls');
  const importJob = JSON.parse(await output('jobs', 'ls', '--json')).find((j) => j.kind === 'import' && (j.counts.created ?? 0) > 0);
  await callctl('jobs', 'show', importJob.id.slice(0, 6));
  await callctl('import', 'undo', importJob.id.slice(0, 6), '--dry-run');
  await callctl('calls', 'summary', '--by', 'channel');
  await callctl('api', 'GET', '/analytics/outcomes');
  const victim = sandbox.contacts()[0];
  await callctl('contacts', 'find', '--phone', victim.phone, '--country', 'GB');
  await callctl('contacts', 'rm', victim.id);
  await callctl('contacts', 'rm', victim.id, '--confirm');
  await callctl('calls', 'get', 'call_00001');
  console.log(`\nThe sandbox now holds ${sandbox.contacts().length} contacts and ${sandbox.calls().length} calls (the erased contact's call went with them).`);
} finally {
  await sandbox.close();
  rmSync(work, { recursive: true, force: true });
}
