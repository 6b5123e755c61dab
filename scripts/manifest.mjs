#!/usr/bin/env node
// The package.json that ships has no `prepare`: a checkout builds dist/ on `npm install` through
// it, but in a package (a tarball, a global `npm install -g .`) it is an install script, which
// npm 11 warns of and npm 12 blocks unless the user allows it — and the shipped dist/ needs no
// build. `strip` (prepack) checks that dist/ is there and newer than every source (a pack ships
// what `npm run build` made), keeps package.json as it is in `package.json.orig` and drops the
// script; `restore` (postpack, and strip itself first, after a pack that failed half-way) puts the
// kept file back, byte for byte.
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const file = join(root, 'package.json');
const kept = `${file}.orig`;
const mode = process.argv[2];

/** The newest modification time under a folder (0 when it is absent). */
function newest(dir) {
  if (!existsSync(dir)) return 0;
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) t = Math.max(t, e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs);
  return t;
}

if (mode !== 'strip' && mode !== 'restore') {
  console.error('usage: node scripts/manifest.mjs strip|restore');
  process.exit(2);
}
if (existsSync(kept)) renameSync(kept, file);
if (mode === 'strip') {
  const built = existsSync(join(root, 'dist/main.cjs')) ? statSync(join(root, 'dist/main.cjs')).mtimeMs : 0;
  if (built === 0 || built < newest(join(root, 'src'))) {
    console.error('dist/ is missing or older than src/: run npm run build before packing');
    process.exit(1);
  }
  const text = readFileSync(file, 'utf8');
  const pkg = JSON.parse(text);
  if (pkg.scripts?.prepare !== undefined) {
    writeFileSync(kept, text);
    delete pkg.scripts.prepare;
    writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
  }
}
