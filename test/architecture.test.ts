// The import directions docs/architecture.md draws hold for every file of src/: each in a room of
// its table, no import to a room on its own floor or above (but the exceptions the page lists), no
// import past the door of pace/. The checker itself is tried on small trees that break each rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT, tempDir } from './helpers/cli.js';
import { importsOf, roomsOf, violations } from './helpers/rooms.js';

const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
const rooms = roomsOf(doc);

test('src/ keeps to the rooms and floors of docs/architecture.md', () => {
  assert.ok(rooms.floors.size >= 20, `the page's table was read: ${[...rooms.floors.keys()].join(', ')}`);
  const { broken, unused } = violations(join(ROOT, 'src'), rooms);
  assert.deepEqual(broken, [], `imports that break docs/architecture.md:\n${broken.join('\n')}`);
  assert.deepEqual(unused, [], 'an exception the page lists that no import needs any more: take it off the page');
  assert.ok(doc.split('\n').length < 200, 'docs/architecture.md stays one page');
});

/** A small src/ tree from `files` (path → text). */
function tree(t: { after(fn: () => unknown): void }, files: Record<string, string>): string {
  const src = join(tempDir(t), 'src');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(src, path)), { recursive: true });
    writeFileSync(join(src, path), text);
  }
  return src;
}

test('the checker finds a climb, a plan importing a plan, a file in no room, a door passed — and a type-only or dynamic import counts', (t) => {
  const src = tree(t, {
    'errors.ts': 'export class CallctlError extends Error {}\n',
    'output/log.ts': "import type { Context } from '../context.js';\nexport const log = 1;\n",
    'context.ts': "import { log } from './output/log.js';\nexport type Context = typeof log;\n",
    'erasure/requests.ts': "export async function read() { return import('../import/source.js'); }\n",
    'import/source.ts': "import { CallctlError } from '../errors.js';\nexport const open = CallctlError;\n",
    'http/client.ts': "import { gate } from '../pace/gate.js';\nimport { createPace } from '../pace/index.js';\nexport const c = [gate, createPace];\n",
    'pace/index.ts': "export { gate as createPace } from './gate.js';\n",
    'pace/gate.ts': 'export const gate = 1;\n',
    'stray/thing.ts': 'export const x = 1;\n',
  });
  const { broken } = violations(src, rooms);
  assert.deepEqual(broken, [
    'erasure/requests.ts → import/source.ts: erasure/ (floor 7) imports a room on its own floor import/ (floor 7)',
    'http/client.ts → pace/gate.ts: past the door of pace/ (import src/pace/index.ts)',
    'output/log.ts → context.ts: output/ (floor 1) climbs to context.ts (floor 5)',
    'stray/thing.ts: in no room of docs/architecture.md',
  ]);
});

test('imports are read however they are written', () => {
  const text = [
    "import a from './a.js';",
    "import type { B } from '../b.js';",
    "export { c } from './c.js';",
    "const d = await import('./d.js');",
    "let e: import('./e.js').E;",
    "import { f } from 'undici';",
  ].join('\n');
  assert.deepEqual(importsOf(text).sort(), ['../b.js', './a.js', './c.js', './d.js', './e.js']);
});
