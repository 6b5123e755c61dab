// Start-up is lazy: --version and --help load no HTTP, CSV, phone, Redis or sandbox code (docs/cli.md,
// issue 3). Every module the process resolves is recorded by a loader hook and checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';

const HEAVY = /undici|csv-parse|csv-stringify|libphonenumber|bottleneck|ioredis|\/ora\/|cli-table3|\/conf\/|\/dist\/(sandbox|http|import|phone)\//;

async function loaded(t: Parameters<typeof tempDir>[0], args: string[]): Promise<string[]> {
  const file = join(tempDir(t), 'imports.txt');
  const child = spawn(process.execPath, ['--import', join(ROOT, 'test/helpers/record-imports.mjs'), BIN, ...args], {
    env: { PATH: process.env.PATH, CALLCTL_TEST_IMPORTS: file, CALLCTL_CONFIG_DIR: tempDir(t) },
    stdio: 'ignore',
  });
  const code = await new Promise((done) => child.on('close', done));
  assert.equal(code, 0, args.join(' '));
  return readFileSync(file, 'utf8').trim().split('\n');
}

for (const args of [['--version'], ['--help'], ['contacts', '--help'], ['import', '--help'], ['sandbox', '--help']]) {
  test(`callctl ${args.join(' ')} loads no heavy module`, async (t) => {
    const urls = await loaded(t, args);
    assert.ok(urls.length > 0, 'the hook recorded the imports');
    assert.deepEqual(urls.filter((u) => HEAVY.test(u)), []);
  });
}

test('the check can fail: a dry-run import does load the CSV and phone code', async (t) => {
  const urls = await loaded(t, ['import', join(ROOT, 'fixtures/outlook.csv'), '--dry-run', '--country', 'US']);
  assert.ok(urls.some((u) => /csv-parse/.test(u)));
  assert.ok(urls.some((u) => /libphonenumber/.test(u)));
});
