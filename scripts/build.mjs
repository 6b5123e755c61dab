#!/usr/bin/env node
// Builds dist/ with esbuild: one ESM bundle for the entry and the command tree (commander
// included — loading it as separate modules was most of the start-up time), and every verb's
// `import()` kept as its own chunk, so `--help` still loads no HTTP, CSV, phone, Redis or sandbox
// code. The runtime dependencies are bundled into those lazy chunks too: resolving and reading
// undici, conf/ajv or ioredis file by file cost more than parsing them (contacts ls: ~845 → ~445
// ms on a loaded 2-core machine). Source maps (`.js.map`, paths only) let a `--verbose` stack
// point at src/. Type checking is `tsc --noEmit`, run before this by `npm run build`.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
// A dependency that cannot be bundled goes here (and then must stay in `dependencies`).
const EXTERNAL = [];

rmSync(resolve(root, 'dist'), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  // The bin shim's imports (a command; a TAB's completion), plus the sandbox for the benchmark
  // and demo scripts.
  entryPoints: ['src/main.ts', 'src/deps.ts', 'src/commands/completion/complete.ts', 'src/sandbox/index.ts'],
  outbase: 'src',
  outdir: 'dist',
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: EXTERNAL.flatMap((d) => [d, `${d}/*`]),
  // Smaller files parse faster; identifiers keep their names so a stack still reads.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: true,
  sourcesContent: false,
  legalComments: 'none',
  logLevel: 'warning',
  // commander, undici and others are CommonJS and require node builtins; ESM has no `require`.
  banner: { js: "import { createRequire as __callctlRequire } from 'node:module'; const require = __callctlRequire(import.meta.url);" },
});
