// esbuild plugins for scripts/build.mjs, for start-up (BENCHMARKS.md §4): how the bundles get
// Node's builtins — those that bundled libraries require at load but callctl never uses are loaded
// on first use, every other builtin comes from `process.getBuiltinModule` — and string-width's
// answer for plain ASCII.
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';

/**
 * `import { readFileSync } from 'node:fs'` in ESM, and `require('fs')` as well, build the
 * builtin's public facade, which reads every one of its exports, getters included: node:fs's
 * `ReadStream` loads the whole streams implementation, node:util's `TextDecoder` the encoding
 * code — ~7 ms of every start on Node 24, for names callctl never reads.
 * `process.getBuiltinModule` (Node ≥ 20.16) returns the same object without that:
 * - a `require` of a builtin gets it from there (bin/callctl.js's `require` for dist/, `REQUIRE`
 *   below for the worker);
 * - an `import` of a builtin becomes an ES module over it whose every export is a pure read of one
 *   property, so esbuild keeps only the names imported somewhere and nothing reads the others (as
 *   CommonJS, esbuild's interop would copy every property's descriptor, which computes node:util's
 *   lazy ones).
 */
const BUILTIN = new RegExp(`^(node:[a-z_/]+|${builtinModules.join('|')})$`);
const IDENT = /^[A-Za-z_$][\w$]*$/;
const esmOver = async (id) => {
  const names = Object.keys(await import(id)).filter((k) => k !== 'default' && IDENT.test(k));
  return [
    `const m = process.getBuiltinModule(${JSON.stringify(id)}), read = (k) => m[k];`,
    'export default m;',
    ...names.map((k, i) => `const b${i} = /* @__PURE__ */ read(${JSON.stringify(k)}); export { b${i} as ${k} };`),
  ].join('\n');
};
/**
 * For the phone worker, the one bundle that stays an ES module: every `import` of a builtin gets a
 * module over getBuiltinModule. (dist/'s other files are CommonJS since the code cache; their
 * `require` of a builtin is answered by getBuiltinModule in bin/callctl.js, and modules over it
 * there measured the same.) An `import()` stays native.
 */
export const viaGetBuiltinModule = {
  name: 'via-get-builtin-module',
  setup(b) {
    b.onResolve({ filter: BUILTIN }, (a) => (a.kind === 'import-statement' ? { path: a.path.startsWith('node:') ? a.path : `node:${a.path}`, namespace: 'builtin-esm' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'builtin-esm' }, async (a) => ({ contents: await esmOver(a.path), loader: 'js' }));
  },
};

/**
 * The `require` the phone worker's bundle declares (an ES module has none; bundled CommonJS libraries call it for
 * builtins, and for optional packages that may be missing). A builtin comes from
 * getBuiltinModule; anything else from Node's CommonJS `require`, made on first need — making it
 * loads the CommonJS loader, ~4 ms.
 */
export const REQUIRE = "let __callctlRequire; const require = (id) => process.getBuiltinModule(id) ?? (__callctlRequire ??= process.getBuiltinModule('node:module').createRequire(import.meta.url))(id);";

/**
 * A plugin that gives the modules of one package `contents` (CommonJS) in place of one builtin:
 * each builtin below is required at load by a library that uses little or none of it.
 */
const insteadOf = (builtin, pkg, contents) => ({
  name: `lazy-${builtin}-for-${pkg}`,
  setup(b) {
    const importer = new RegExp(`[/\\\\]node_modules[/\\\\]${pkg}[/\\\\]`);
    b.onResolve({ filter: new RegExp(`^(node:)?${builtin}$`) }, (a) => (importer.test(a.importer) ? { path: builtin, namespace: `lazy-${builtin}` } : undefined));
    b.onLoad({ filter: /.*/, namespace: `lazy-${builtin}` }, () => ({ contents, loader: 'js' }));
  },
});

/**
 * commander requires node:child_process at load, for executable subcommands (callctl has none):
 * that builtin (with dgram and the rest it pulls) cost ~2 ms of every start. Here commander gets
 * it on first use instead.
 */
export const lazyChildProcess = insteadOf('child_process', 'commander', "module.exports = { spawn: (...args) => process.getBuiltinModule('node:child_process').spawn(...args) };");

/**
 * undici requires node:http2 at load for HTTP/2, which callctl never asks for (undici's default is
 * HTTP/1.1): that builtin brings tls and crypto, 12–30 ms of a command's start. undici reads only
 * protocol constants (RFC 9113, the values node:http2 has) at load; the rest is loaded on first use.
 * test/dist/lazy-builtins.test.ts checks these constants against node:http2.
 */
export const HTTP2_CONSTANTS = {
  HTTP2_HEADER_AUTHORITY: ':authority',
  HTTP2_HEADER_METHOD: ':method',
  HTTP2_HEADER_PATH: ':path',
  HTTP2_HEADER_SCHEME: ':scheme',
  HTTP2_HEADER_CONTENT_LENGTH: 'content-length',
  HTTP2_HEADER_EXPECT: 'expect',
  HTTP2_HEADER_STATUS: ':status',
  HTTP2_HEADER_PROTOCOL: ':protocol',
  NGHTTP2_REFUSED_STREAM: 7,
  NGHTTP2_CANCEL: 8,
};
export const lazyHttp2 = insteadOf(
  'http2',
  'undici',
  `const real = () => process.getBuiltinModule('node:http2');
module.exports = new Proxy({ constants: ${JSON.stringify(HTTP2_CONSTANTS)} }, { get: (t, k) => (k === 'constants' ? t.constants : real()[k]) });`,
);

/**
 * undici requires node:assert in 33 files, only to call it as `assert(condition)` (a test checks
 * that): loading node:assert costs ~4 ms of every command that sends a request on Node 24. A true
 * condition returns at once, as node:assert does; a false one is handed to node:assert, loaded
 * then, which throws its own AssertionError (worded from the wrapper's call rather than undici's
 * line — the only difference, and only when undici finds itself broken).
 */
export const lazyAssert = insteadOf('assert', 'undici', "module.exports = function assert(value) { if (!value) return process.getBuiltinModule('node:assert').apply(this, arguments); };");

/**
 * cli-table3 measures every cell with string-width 4, which loads strip-ansi and emoji-regex at
 * require time and runs emoji-regex's pattern (thousands of alternatives, compiled on first use)
 * over each cell: ~2–3 ms of every table, for cells that are mostly plain ASCII. Printable ASCII
 * (0x20–0x7e) holds no escape, no emoji and no wide or zero-width character, so its width is its
 * length — the answer string-width gives (test/dist/lazy-builtins.test.ts compares the two). Other
 * text goes the library's own way, its helpers loaded on first need. If the file changes shape,
 * the build stops here.
 */
export const stringWidthAscii = (file) => ({
  name: 'string-width-ascii',
  setup(b) {
    b.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, (args) => (args.path === file ? { contents: patchStringWidth(readFileSync(args.path, 'utf8'), args.path), loader: 'js' } : undefined));
  },
});

const REQUIRES = "const stripAnsi = require('strip-ansi');\nconst isFullwidthCodePoint = require('is-fullwidth-code-point');\nconst emojiRegex = require('emoji-regex');";
const ENTRY = 'const stringWidth = string => {\n';

/** string-width 4's index.js with the ASCII answer first and its helpers loaded on first need. */
export function patchStringWidth(text, where = 'string-width/index.js') {
  if (!text.includes(REQUIRES) || !text.includes(ENTRY)) throw new Error(`${where}: string-width changed shape; update stringWidthAscii in scripts/lazy-builtins.mjs`);
  const lazy = [
    'let helpers;',
    "const helper = () => (helpers ??= { stripAnsi: require('strip-ansi'), isFullwidthCodePoint: require('is-fullwidth-code-point'), emojiRegex: require('emoji-regex') });",
    'const stripAnsi = (s) => helper().stripAnsi(s);',
    'const isFullwidthCodePoint = (c) => helper().isFullwidthCodePoint(c);',
    'const emojiRegex = () => helper().emojiRegex();',
    'const PRINTABLE_ASCII = /^[\\x20-\\x7e]*$/;',
  ].join('\n');
  return text.replace(REQUIRES, () => lazy).replace(ENTRY, () => `${ENTRY}\tif (typeof string === 'string' && PRINTABLE_ASCII.test(string)) return string.length;\n`);
}
