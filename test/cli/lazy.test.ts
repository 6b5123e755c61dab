// Start-up is lazy: --version and --help load no HTTP, CSV, phone, Redis or sandbox code (docs/development.md, "Building and shipping").
// Every module the process resolves is recorded by a loader hook and checked. dist/ is an esbuild
// bundle, so a dist file is expanded into the source files it was built from (its source map's
// `sources`): what start-up loads is judged by the src/ and node_modules files inside it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';

const HEAVY = /undici|csv-parse|csv-stringify|libphonenumber|bottleneck|ioredis|\/ora\/|cli-table3|\/conf\/|asciichart|\/src\/(sandbox|http|import|phone|jobs)\//;

/** A loaded URL, or for a bundled dist/ file every source it holds (absolute paths). */
function sourcesOf(url: string): string[] {
  if (!url.startsWith('file:') || !url.includes('/dist/')) return [url];
  const file = fileURLToPath(url);
  if (!existsSync(`${file}.map`)) return [url];
  const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
  return map.sources.map((s) => resolve(dirname(file), s));
}

async function loaded(t: Parameters<typeof tempDir>[0], args: string[]): Promise<string[]> {
  return (await loadedFiles(t, args)).flatMap(sourcesOf);
}

/** The URLs a run resolves, as they are (dist/ files not expanded). */
async function loadedFiles(t: Parameters<typeof tempDir>[0], args: string[]): Promise<string[]> {
  const file = join(tempDir(t), 'imports.txt');
  const child = spawn(process.execPath, ['--import', join(ROOT, 'test/helpers/record-imports.mjs'), BIN, ...args], {
    env: { PATH: process.env.PATH, CALLCTL_TEST_IMPORTS: file, CALLCTL_CONFIG_DIR: tempDir(t) },
    stdio: 'ignore',
  });
  const code = await new Promise((done) => child.on('close', done));
  assert.equal(code, 0, args.join(' '));
  return readFileSync(file, 'utf8').trim().split('\n');
}

for (const args of [['--version'], ['--help'], ['contacts', '--help'], ['import', '--help'], ['jobs', '--help'], ['import', 'undo', '--help'], ['sandbox', '--help'], ['__complete', 'bash', 'contacts', 'ls', '--format', ''], ['__complete', 'bash', 'import', 'x.csv', '--country', 'G']]) {
  test(`callctl ${args.join(' ')} loads no heavy module`, async (t) => {
    const urls = await loaded(t, args);
    assert.ok(urls.length > 0, 'the hook recorded the imports');
    if (args[0] !== '--version') {
      assert.ok(urls.some((u) => u.endsWith('/src/program.ts')), 'the bundle maps back to src/');
      assert.ok(!urls.some((u) => /\/src\/commands\/[a-z]+\/(run|ls|get|add|edit|rm|outcome|show|resume|undo)\.ts$/.test(u)), 'no verb is loaded');
    }
    assert.deepEqual(urls.filter((u) => HEAVY.test(u)), []);
  });
}

test('--help and a TAB load the entry as a few files, not one per shared module (BENCHMARKS.md §4)', async (t) => {
  // bin, dist/main.cjs, the entry's one chunk and a tiny shared one: each file more costs a read,
  // a compile (or its cache's) on every start. (A build that split the entry's graph
  // again — a second entry sharing its modules did — loaded ten.)
  for (const args of [['--help'], ['contacts', '--help'], ['__complete', 'bash', 'cont']]) {
    const files = [...new Set(await loadedFiles(t, args))].filter((u) => u.startsWith('file:') && !u.includes('/node_modules/'));
    assert.ok(files.length <= 4, `callctl ${args.join(' ')} loaded ${files.length} files: ${files.map((u) => u.slice(u.lastIndexOf('/') + 1)).join(', ')}`);
  }
});

test("--help takes Node's builtins without their ES module facades: nothing goes through the ES module loader", async (t) => {
  // `import … from 'node:fs'` builds node:fs's facade, which reads every export: its ReadStream
  // getter loads the streams code, node:util's TextDecoder the encoders (~7 ms on Node 24). The bin
  // is a CommonJS script that takes every builtin from process.getBuiltinModule, and compiles dist/
  // itself (CommonJS, its `require` of a builtin answered by getBuiltinModule too): nothing but the
  // bin (recorded by the preload as the entry) is resolved outside dist/, and dist's files are all
  // compiled through the bin's code cache.
  for (const args of [['--help'], ['contacts', '--help'], ['import', join(ROOT, 'fixtures/outlook.csv'), '--dry-run', '--country', 'US']]) {
    const files = await loadedFiles(t, args);
    const viaEsm = files.filter((u) => !u.includes('/dist/'));
    assert.deepEqual([...new Set(viaEsm)], [pathToFileURL(BIN).href], `callctl ${args.join(' ')}`);
    assert.ok(files.some((u) => u.endsWith('/dist/main.cjs')), 'dist/ compiled through the bin');
  }
});

test('the bin is a CommonJS script: no command starts the ES module loader (where a CommonJS script does not)', async (t) => {
  // On Node 20 the ES module loader's start cost ~0.16× of a bare start on every command. Node 24
  // loads it for any script: there the check has nothing to tell, and says so by its baseline.
  const dir = tempDir(t);
  const probe = (script: string, args: string[]) => {
    const file = join(dir, `esm-${Math.random().toString(36).slice(2)}.json`);
    const r = spawnSync(process.execPath, ['-r', join(ROOT, 'test/helpers/esm-probe.cjs'), script, ...args], { env: { PATH: process.env.PATH, CALLCTL_TEST_ESM: file, CALLCTL_CONFIG_DIR: dir }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(readFileSync(file, 'utf8')) as string[];
  };
  const plain = join(dir, 'plain.cjs');
  writeFileSync(plain, 'void 0;\n');
  const asModule = join(dir, 'plain.mjs');
  writeFileSync(asModule, 'void 0;\n');
  const baseline = probe(plain, []);
  if (baseline.length > 0) return t.skip(`Node ${process.version} loads the ES module loader for any script`);
  assert.ok(probe(asModule, []).length > 0, 'the check can fail: an ES module starts the loader');
  for (const args of [['--version'], ['--help'], ['contacts', '--help'], ['__complete', 'bash', 'cont']]) {
    assert.deepEqual(probe(BIN, args), [], `callctl ${args.join(' ')}`);
  }
});

test('the check can fail: a dry-run import does load the CSV and phone code', async (t) => {
  const urls = await loaded(t, ['import', join(ROOT, 'fixtures/outlook.csv'), '--dry-run', '--country', 'US']);
  assert.ok(urls.some((u) => /csv-parse/.test(u)));
  assert.ok(urls.some((u) => /libphonenumber/.test(u)));
  assert.ok(urls.some((u) => u.endsWith('/src/import/run-import.ts')), 'the import code, seen through the bundle');
});

test('the keychain binding loads only for a command that needs the key: not for help, config or a key from CALLCTL_API_KEY', async (t) => {
  // A preload records each `require` of @napi-rs/keyring and each native addon opened — in the
  // keychain's child process too (src/config/keychain.ts), which NODE_OPTIONS reaches.
  const dir = tempDir(t);
  const preload = join(dir, 'native.cjs');
  const log = join(dir, 'native.txt');
  writeFileSync(
    preload,
    `const fs = require('node:fs'); const Module = require('node:module');
const load = Module._load; Module._load = function (id, ...rest) { if (String(id).includes('@napi-rs/keyring')) fs.appendFileSync(${JSON.stringify(log)}, 'require ' + id + '\\n'); return load.call(this, id, ...rest); };
const dlopen = process.dlopen; process.dlopen = function (m, file, ...rest) { fs.appendFileSync(${JSON.stringify(log)}, 'dlopen ' + file + '\\n'); return dlopen.call(this, m, file, ...rest); };\n`,
  );
  const config = join(dir, 'config');
  spawnSync('mkdir', ['-p', config]);
  writeFileSync(join(config, 'config.json'), JSON.stringify({ profiles: { default: { baseUrl: 'http://127.0.0.1:9/api/v1', keychain: { service: `callctl:${config}`, account: 'default' } } } }));
  const loads = (args: string[], extra: Record<string, string> = {}) => {
    writeFileSync(log, '');
    spawnSync(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, CALLCTL_CONFIG_DIR: config, NODE_OPTIONS: `-r ${preload}`, ...extra }, encoding: 'utf8', timeout: 30_000 });
    return readFileSync(log, 'utf8');
  };
  for (const args of [['--help'], ['auth', '--help'], ['config', 'list'], ['config', 'get', 'apiKey'], ['completion', 'bash'], ['__complete', 'bash', 'auth', '']]) {
    assert.equal(loads(args), '', `callctl ${args.join(' ')}`);
  }
  assert.equal(loads(['contacts', 'ls'], { CALLCTL_API_KEY: `sk_live_${'k'.repeat(20)}` }), '', 'a key from the environment: the keychain is not read');
  assert.match(loads(['auth', 'status']), /require @napi-rs\/keyring[\s\S]*dlopen .*keyring.*\.node/, 'the check can fail: auth status of a keychain profile loads it');
});
