#!/usr/bin/env node
// Builds dist/ with esbuild: one ESM bundle for the entry and the command tree (commander
// included — loading it as ~20 separate modules was most of the start-up time), and every verb's
// `import()` kept as its own chunk, so `--help` still loads no HTTP, CSV, phone, Redis or sandbox
// code. The other runtime dependencies stay external (installed with the package) and load only
// inside those chunks. Source maps (`.js.map`, with the sources inline) let a `--verbose` stack
// point at src/. Type checking is `tsc --noEmit`, run before this by `npm run build`.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
// Bundled: commander (needed by every start). External: everything else the package depends on.
const BUNDLED = new Set(['commander']);
const external = Object.keys(pkg.dependencies ?? {}).filter((d) => !BUNDLED.has(d));

rmSync(resolve(root, 'dist'), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  // The bin shim's two imports, plus the sandbox for the benchmark and demo scripts.
  entryPoints: ['src/main.ts', 'src/deps.ts', 'src/sandbox/index.ts'],
  outbase: 'src',
  outdir: 'dist',
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: external.flatMap((d) => [d, `${d}/*`]),
  sourcemap: true,
  sourcesContent: true,
  legalComments: 'none',
  logLevel: 'warning',
  // commander is CommonJS and requires node builtins; an ESM bundle has no `require` of its own.
  banner: { js: "import { createRequire as __callctlRequire } from 'node:module'; const require = __callctlRequire(import.meta.url);" },
});
