#!/usr/bin/env node
// Runs every test file with node's own runner. Node 20 expands no globs in --test arguments and a
// bare --test finds no .ts files, so the list is built here. TAP ends with "# pass N / # fail N".
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function find(dir) {
  return readdirSync(dir)
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? find(p) : p.endsWith('.test.ts') ? [p] : [];
    })
    .sort();
}

// A filter narrows the run: `npm test -- sandbox` runs test files whose path contains "sandbox".
const filters = process.argv.slice(2);
const files = find('test').filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// Most tests wait on rate limits and sockets, not the CPU: run a few files at once.
const concurrency = process.env.TEST_CONCURRENCY ?? '3';
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=tap', `--test-concurrency=${concurrency}`, '--test-timeout=120000', ...files],
  { stdio: 'inherit', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } },
);
process.exit(result.status ?? 1);
