#!/usr/bin/env node
// Builds dist/ with esbuild: one bundle for the entry and the command tree (commander included —
// loading it as separate modules was most of the start-up time), and every verb's `import()` kept
// as its own chunk, so `--help` still loads no HTTP, CSV, phone, Redis or sandbox code. The
// entry's whole static graph is one chunk: esbuild splits shared code by the set of entries (an
// `import()` is one) that reach it, so errors.ts, deps.ts, parse.ts… each became a small file of
// its own, and every file costs a read and a compile on every start (BENCHMARKS.md §4). Each
// module outside that graph therefore re-exports the entry, which puts the entry's graph behind
// one set of entries: dist/main.cjs re-exports one chunk.
// The runtime libraries are bundled into the lazy chunks too (so the package declares no other
// dependency): resolving and reading undici, conf/ajv or ioredis file by file costs more than
// parsing them (file by file, `contacts ls` starts about twice as slowly). The one exception is the
// keychain binding, @napi-rs/keyring: a native `.node` file per platform, which npm installs as
// an optional package of its own (prebuilt, no compiler); it is the package's one dependency,
// required at run time by src/config/keychain.ts inside a try, so a platform without it falls
// back to the 0600 file.
// Two passes: esbuild splits code only into ES modules, and bin/callctl.js compiles dist/ itself
// with V8's code cache made after a run, which only classic scripts have (vm.Script): so the
// split ES modules are turned into CommonJS, file by file, in place. The sources stay ES modules.
// Source maps (`.cjs.map`, paths only, chained through both passes) let a `--verbose` stack point
// at src/. Type checking is `tsc --noEmit`, run before this by `npm run build`.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { REQUIRE, lazyAssert, lazyChildProcess, lazyHttp2, stringWidthAscii, viaGetBuiltinModule } from './lazy-builtins.mjs';

const root = resolve(import.meta.dirname, '..');
// A library that cannot be bundled goes here (and then must move back to `dependencies`).
const EXTERNAL = ['@napi-rs/keyring'];

const ENTRY = resolve(root, 'src/main.ts');
const WORKER = 'src/import/phone-worker.ts';
const external = EXTERNAL.flatMap((d) => [d, `${d}/*`]);

/** An entry's static graph (every `import()` left out): its modules, as absolute paths. */
const staticGraph = async (entry) => {
  const graph = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    external,
    logLevel: 'warning',
    plugins: [{ name: 'static-only', setup: (b) => b.onResolve({ filter: /.*/ }, (a) => (a.kind === 'dynamic-import' ? { path: a.path, external: true } : undefined)) }],
  });
  return new Set(Object.keys(graph.metafile.inputs).map((p) => resolve(root, p)));
};
const inEntry = await staticGraph(ENTRY);

/** Every src/ module outside the entry's graph imports the entry (see the top of this file). */
const entryFirst = {
  name: 'entry-first',
  setup(b) {
    b.onLoad({ filter: /[/\\]src[/\\].*\.ts$/ }, (a) => {
      if (inEntry.has(a.path) || a.path === ENTRY) return undefined;
      // At the end: an import is hoisted wherever it stands, and the source map's lines stay right.
      return { contents: `${readFileSync(a.path, 'utf8')}\nexport * from ${JSON.stringify(ENTRY)};\n`, loader: 'ts' };
    });
  },
};

/**
 * libphonenumber-js checks a number against its metadata's patterns with
 * `new RegExp('^(?:' + pattern + ')$').test(text)` on every call: each call builds the long
 * source string again and V8 hashes it to find the compiled expression — 37 % of the CPU of an
 * import dry run (BENCHMARKS.md §3). The patterns are the metadata's own strings, a bounded set,
 * and the expression has no `g` or `y` flag (no lastIndex state), so one RegExp per pattern,
 * kept, answers the same. If a new version changes that file, the build stops here rather than
 * silently losing the cache.
 */
const phoneRegexCache = {
  name: 'libphonenumber-regexp-cache',
  setup(b) {
    b.onLoad({ filter: /libphonenumber-js[\\/]es6[\\/]helpers[\\/]matchesEntirely\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const call = "return new RegExp('^(?:' + regularExpressionText + ')$').test(text);";
      if (!text.includes(call)) throw new Error(`${args.path}: matchesEntirely changed shape; update the regexp cache in scripts/build.mjs`);
      const cached = [
        'let regex = matchesEntirelyCache.get(regularExpressionText);',
        "if (regex === undefined) { if (matchesEntirelyCache.size >= 10000) matchesEntirelyCache.clear(); regex = new RegExp('^(?:' + regularExpressionText + ')$'); matchesEntirelyCache.set(regularExpressionText, regex); }",
        'return regex.test(text);',
      ].join('\n');
      return { contents: `const matchesEntirelyCache = new Map();\n${text.replace(call, () => cached)}`, loader: 'js' };
    });
  },
};

rmSync(resolve(root, 'dist'), { recursive: true, force: true });
/** What every bundle here shares: ESM for Node 20, small, with source maps. */
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external,
  // Smaller files parse faster; identifiers keep their names so a stack still reads.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: true,
  sourcesContent: false,
  legalComments: 'none',
  logLevel: 'warning',
  // commander, undici and others are CommonJS and require node builtins; ESM has no `require`.
  banner: { js: REQUIRE },
};

// A TAB after --country offers the phone library's regions: the list is written into the bundle
// (src/commands/completion/complete.ts) rather than loading the library's metadata on each TAB.
const { getCountries } = await import('libphonenumber-js/max');

const split = await build({
  ...common,
  define: { CALLCTL_REGIONS: JSON.stringify(getCountries()) },
  // The bin shim's import (main.ts re-exports what a TAB's completion needs), plus the sandbox
  // for the benchmark and demo scripts.
  entryPoints: ['src/main.ts', 'src/sandbox/index.ts'],
  plugins: [entryFirst, lazyChildProcess, lazyHttp2, lazyAssert, phoneRegexCache, stringWidthAscii(resolve(root, 'node_modules/string-width/index.js'))],
  outbase: 'src',
  outdir: 'dist',
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  // ES modules for now, but .cjs already (so every import names its final file), and without the
  // ESM `require` banner: pass 2 makes them CommonJS, which has a require of its own.
  banner: {},
  outExtension: { '.js': '.cjs' },
  metafile: true,
});

// The dry run's phone worker (a thread started from dist/import/, see src/import/phone-threads.ts):
// a build of its own, one file with all it needs. Built with the rest, the modules it shares with
// the entry's graph (errors, the phone code) were split out of that graph's one chunk, and
// `--help` went back to loading ten files.
await build({ ...common, entryPoints: [WORKER], plugins: [viaGetBuiltinModule, phoneRegexCache], outfile: 'dist/import/phone-worker.js' });

// Pass 2: each file of that build as CommonJS, in place (bin/callctl.js compiles them with V8's
// code cache, BENCHMARKS.md §4). An `import()` becomes a `require()`, `import.meta.url` the file's
// URL; esbuild chains the input source maps, so a --verbose stack still names src/.
const cjs = Object.keys(split.metafile.outputs).filter((f) => f.endsWith('.cjs'));
// The build's id names the code cache's folder (bin/callctl.js): a hash of what pass 1 wrote.
const id = createHash('sha256');
for (const f of [...Object.keys(split.metafile.outputs)].sort()) id.update(f).update(readFileSync(resolve(root, f)));
const BUILD = id.digest('hex').slice(0, 16);
await build({
  absWorkingDir: root,
  entryPoints: cjs,
  outdir: 'dist',
  outbase: 'dist',
  outExtension: { '.js': '.cjs' },
  allowOverwrite: true,
  bundle: false,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  supported: { 'dynamic-import': false },
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: `var __importMetaUrl = require("node:url").pathToFileURL(__filename).href; /* callctl-build:${BUILD} */` },
  minifyWhitespace: true,
  sourcemap: true,
  sourcesContent: false,
  legalComments: 'none',
  logLevel: 'warning',
});
// bin/callctl.js compiles these as scripts, which have no `import()`: one left would fail only when
// its command runs.
for (const f of cjs) if (/(^|[^\w$.])import\(/.test(readFileSync(resolve(root, f), 'utf8'))) throw new Error(`${f}: an import() was left in the CommonJS build`);
