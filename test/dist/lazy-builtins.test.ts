// Builtins that bundled libraries require at load but callctl never uses are loaded on first use
// (scripts/lazy-builtins.mjs). undici reads HTTP/2 protocol constants at load: the build gives it
// fixed values instead of loading node:http2 — they must be node:http2's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { constants } from 'node:http2';
// @ts-expect-error: a build script (plain .mjs, no types)
import { HTTP2_CONSTANTS } from '../../scripts/lazy-builtins.mjs';

test("the HTTP/2 constants undici reads at load are node:http2's own", () => {
  const fixed = HTTP2_CONSTANTS as Record<string, string | number>;
  assert.ok(Object.keys(fixed).length >= 10);
  for (const [name, value] of Object.entries(fixed)) assert.equal(value, (constants as Record<string, string | number>)[name], name);
});

test('undici requires nothing from node:http2 at load but these constants', async () => {
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { ROOT } = await import('../helpers/cli.js');
  const source = readFileSync(join(ROOT, 'node_modules/undici/lib/dispatcher/client-h2.js'), 'utf8');
  const destructured = /const \{\s*constants: \{([^}]*)\}\s*\} = http2/.exec(source);
  assert.ok(destructured, 'client-h2.js still destructures http2.constants at load');
  const names = destructured[1]!.split(',').map((n) => n.trim()).filter(Boolean);
  assert.deepEqual(names.sort(), Object.keys(HTTP2_CONSTANTS as object).sort());
  // Every other use of http2 is inside a function (connect), not at load.
  assert.deepEqual([...source.matchAll(/^\S.*\bhttp2\.(\w+)/gm)].map((m) => m[1]), []);
});

test('undici only calls node:assert as assert(condition), so the build gives it a lazy one', async () => {
  const { readFileSync, readdirSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { ROOT } = await import('../helpers/cli.js');
  const lib = join(ROOT, 'node_modules/undici/lib');
  const files = (readdirSync(lib, { recursive: true }) as string[]).filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(lib, f), 'utf8'));
  const requiring = files.filter((s) => /require\('node:assert'\)/.test(s));
  assert.ok(requiring.length >= 10);
  for (const s of requiring) {
    assert.match(s, /^const assert = require\('node:assert'\)$/m);
    assert.doesNotMatch(s, /\bassert\.\w/, 'a use of node:assert other than a call');
  }
});

test("the lazy assert returns on a true condition and throws node:assert's error on a false one", async () => {
  // @ts-expect-error: a build script (plain .mjs, no types)
  const { lazyAssert } = await import('../../scripts/lazy-builtins.mjs');
  let load: (() => { contents: string }) | undefined;
  lazyAssert.setup({ onResolve: () => undefined, onLoad: (_o: unknown, fn: () => { contents: string }) => (load = fn) });
  const module = { exports: undefined as unknown as (v: unknown, m?: string) => void };
  new Function('module', 'process', load!().contents)(module, process);
  assert.equal(module.exports(1), undefined);
  assert.equal(module.exports('x', 'never'), undefined);
  assert.throws(() => module.exports(0, 'undici broke'), { name: 'AssertionError', message: 'undici broke', code: 'ERR_ASSERTION' });
  assert.throws(() => module.exports(null), { name: 'AssertionError' });
});

test('a request from the built callctl loads none of node:assert, node:http2, node:child_process', async (t) => {
  const { runCliBuiltins } = await import('../helpers/cli.js');
  const { startTestSandbox, envFor } = await import('../helpers/sandbox.js');
  const sb = await startTestSandbox(t, { seed: 3 });
  const r = await runCliBuiltins(t, ['contacts', 'ls', '--limit', '1'], { env: envFor(sb, t) });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ID/);
  const loaded = r.builtins;
  assert.ok(loaded.includes('NativeModule net'), 'the report lists the builtins a request loads');
  assert.deepEqual(loaded.filter((m) => /^NativeModule (assert|http2|child_process)$/.test(m)), []);
});

test("string-width's ASCII answer is the library's own, and other text still goes its way", async () => {
  const { readFileSync } = await import('node:fs');
  const { createRequire } = await import('node:module');
  const { join } = await import('node:path');
  const { ROOT } = await import('../helpers/cli.js');
  // @ts-expect-error: a build script (plain .mjs, no types)
  const { patchStringWidth } = await import('../../scripts/lazy-builtins.mjs');
  const file = join(ROOT, 'node_modules/string-width/index.js');
  const require = createRequire(file);
  const original = require(file) as (s: string) => number;
  const patched = { exports: undefined as unknown as (s: string) => number };
  new Function('module', 'exports', 'require', (patchStringWidth as (t: string) => string)(readFileSync(file, 'utf8')))(patched, {}, require);
  const ascii = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i));
  const samples = [
    '', ascii.join(''), ...ascii, '#', '*', '1', '#\ufe0f\u20e3', 'ct_eff9d1f20001', '+447400100000', 'a@b.example',
    '\u001b[31mred\u001b[39m', 'tab\there', 'caf\u00e9', 'e\u0301', '\u6771\u4eac', '\ud83d\udcde call', '\uff21', 'line\nbreak',
  ];
  for (const s of samples) assert.equal(patched.exports(s), original(s), JSON.stringify(s));
  assert.throws(() => (patchStringWidth as (t: string) => string)('module.exports = () => 0;'), /changed shape/);
});

test('the built table code carries the ASCII answer (the patch found its file)', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { ROOT } = await import('../helpers/cli.js');
  const dir = join(ROOT, 'dist/chunks');
  const table = readdirSync(dir).filter((f) => f.startsWith('cli-table3-') && f.endsWith('.cjs'));
  assert.equal(table.length, 1);
  assert.match(readFileSync(join(dir, table[0]!), 'utf8'), /PRINTABLE_ASCII/);
});
