// dist/ is compiled with V8's code cache made after a command has run (bin/callctl.js, docs/cli.md
// "Code cache"): the first run of a command writes it, every later run must find it whole. V8
// rejects a cache made under other flags than its own, so a command that changed a V8 flag at run
// time (Node 20's WebAssembly budget before the first request did) wrote a cache that every
// next start threw away and wrote again — which these tests see as a file replaced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli, runCliBuiltins, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

type T = Parameters<typeof tempDir>[0];

/** The cache files of one command, each with its inode (a file written again is a new inode). */
function cacheOf(root: string, key: string): Map<string, number> {
  const dir = join(root, 'callctl', 'code-cache');
  const builds = readdirSync(dir).filter((d) => d.endsWith(`-${process.version}-${process.arch}`));
  assert.equal(builds.length, 1, `one build's folder: ${builds.join(', ')}`);
  const folder = join(dir, builds[0]!, key);
  return new Map(readdirSync(folder).map((f) => [join(folder, f), statSync(join(folder, f)).ino]));
}

async function ok(args: string[], env: Record<string, string | undefined>): Promise<string> {
  const r = await runCli(args, { env });
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

test('the first run of a command writes its code cache; the next ones find it whole, a dry run and a request included', async (t: T) => {
  const sb = await startTestSandbox(t, { seed: 3 });
  const cache = tempDir(t);
  const env = envFor(sb, t, { XDG_CACHE_HOME: cache });
  const dryRun = ['import', join(ROOT, 'fixtures/outlook.csv'), '--dry-run', '--country', 'US'];
  const commands: Array<[string[], string]> = [
    [['--help'], 'callctl-help'],
    [['contacts', 'ls', '--limit', '1'], 'contacts-ls'],
    [['contacts', 'ls', '--help'], 'contacts-ls-help'],
    [dryRun, 'import-dry-run'],
  ];
  const first = new Map<string, Map<string, number>>();
  for (const [args, key] of commands) {
    await ok(args, env);
    const files = cacheOf(cache, key);
    assert.ok([...files.keys()].some((f) => f.endsWith('main.cjs.bin')), `${key}: ${[...files.keys()].join(', ')}`);
    first.set(key, files);
  }
  // Each again, interleaved (a dry run's V8 flags differ from the others', and on Node 20 a help's
  // from its verb's real run): nothing is rewritten.
  for (const [args, key] of [...commands, ...commands]) {
    await ok(args, env);
    assert.deepEqual(cacheOf(cache, key), first.get(key), `${key}: a cache file was written again (V8 rejected it)`);
  }
});

test('a damaged cache file is not trusted: the command runs as ever and the file is made again', async (t: T) => {
  const cache = tempDir(t);
  const env = { CALLCTL_CONFIG_DIR: tempDir(t), XDG_CACHE_HOME: cache };
  const help = await ok(['--help'], env);
  const files = cacheOf(cache, 'callctl-help');
  for (const f of files.keys()) writeFileSync(f, Buffer.alloc(statSync(f).size, 0x5a));
  assert.equal(await ok(['--help'], env), help);
  const remade = cacheOf(cache, 'callctl-help');
  for (const [f, ino] of remade) assert.notEqual(ino, files.get(f), `${f} was not made again`);
  // …and the new one is whole.
  await ok(['--help'], env);
  assert.deepEqual(cacheOf(cache, 'callctl-help'), remade);
});

test('NODE_DISABLE_COMPILE_CACHE: no code cache is read or written', async (t: T) => {
  const cache = tempDir(t);
  await ok(['--help'], { CALLCTL_CONFIG_DIR: tempDir(t), XDG_CACHE_HOME: cache, NODE_DISABLE_COMPILE_CACHE: '1' });
  assert.ok(!existsSync(join(cache, 'callctl')));
});

test("a help or a TAB loads no node:v8 (~2 ms on Node 20); a request on Node 20 sets its WebAssembly budget first", async (t: T) => {
  const sb = await startTestSandbox(t, { seed: 3 });
  const loaded = async (args: string[]) => {
    const r = await runCliBuiltins(t, args, { env: envFor(sb, t) });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r.builtins;
  };
  for (const args of [['--help'], ['contacts', 'ls', '--help'], ['__complete', 'bash', 'cont'], ['config', 'path']]) {
    const list = await loaded(args);
    assert.ok(list.includes('NativeModule fs'), 'the report lists the builtins');
    assert.ok(!list.includes('NativeModule v8'), `callctl ${args.join(' ')} loaded node:v8`);
  }
  // The check can fail: below V8 12 a request sets the budget, and that loads node:v8.
  const request = await loaded(['contacts', 'ls', '--limit', '1']);
  assert.equal(request.includes('NativeModule v8'), Number(process.versions.v8.split('.')[0]) < 12);
});
