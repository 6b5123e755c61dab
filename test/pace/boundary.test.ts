// The pace is one module: src/pace/index.ts is the only file of it that anything outside imports
// (the code, the tests and the benchmarks alike), so that its insides can change behind it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { ROOT } from '../helpers/cli.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|mjs|js)$/.test(name) ? [p] : [];
  });
}

test('nothing outside src/pace/ imports any file of it but its index', () => {
  const pace = resolve(ROOT, 'src/pace');
  const outside = ['src', 'test', 'bench', 'scripts'].flatMap((d) => files(join(ROOT, d))).filter((f) => !f.startsWith(`${pace}/`));
  const crossings: string[] = [];
  let imports = 0;
  for (const file of outside) {
    for (const m of readFileSync(file, 'utf8').matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = resolve(file, '..', m[1] as string);
      if (!target.startsWith(`${pace}/`)) continue;
      imports += 1;
      if (target !== join(pace, 'index.js')) crossings.push(`${relative(ROOT, file)} → ${relative(ROOT, target)}`);
    }
  }
  assert.ok(imports > 10, `the check saw ${imports} imports of src/pace/ (it must see the real ones)`);
  assert.deepEqual(crossings, []);
});
