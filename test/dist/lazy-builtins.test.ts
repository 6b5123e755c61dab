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
