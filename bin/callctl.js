#!/usr/bin/env node
// Why this file is more than `process.exitCode = await main(argv)`: what it does has to happen
// before any of callctl is loaded, so it cannot live in src/ (which this file loads). V8's flags
// are fixed before the first compile; the code cache wraps the loading of dist/ itself; `--version`
// answers without loading it. Everything a command does is in src/ (docs/architecture.md, "bin/").
// The only place that touches the process's exit: everything below returns an exit code.
// `callctl --version` alone is answered here, without loading the command tree (start-up budget).
// A CommonJS script (bin/package.json says so), though the package and every source are ES
// modules: it loads dist/ itself (CommonJS-shaped, below), so it imports nothing, and on Node 20
// starting the ES module loader for the bin alone costs a sixth of a bare `node -e 0` on every
// command (BENCHMARKS.md §4; on Node 24 the two are equal). Its name stays
// callctl.js: npx keeps the bin links of a checkout it ran once, and a renamed bin was then "not
// found" there after an update.
const argv = process.argv.slice(2);
const builtin = (id) => process.getBuiltinModule(id);
const dryRun = argv.includes('import') && argv.includes('--dry-run');
// A help, a TAB, or a command that never sends a request (the others may).
const help = argv.length === 0 || argv[0] === 'help' || argv.includes('--help') || argv.includes('-h');
const offline = help || ['__complete', 'completion', 'config', 'sandbox'].includes(argv[0] ?? '');
// V8's flags are set here, before dist/ loads, and never changed later: V8 rejects a code cache
// made under other flags than its own (see viaCodeCache), so a flag set at run time would throw
// the cache away on every start.
if (argv.includes('import') && !help) {
  // An import allocates as fast as the CPU or the limit lets it — a dry run, or a real one against
  // a fast limit — and nearly all of it is garbage (a row's request and answer): V8's young
  // generation keeps its start size (it only ever grows) instead of growing to 32 MB, and the old
  // one grows by a quarter at a time. The live set stays small (a 100,000-row import runs in a
  // 64 MB old space), so peak memory follows the flags, not the file (BENCHMARKS.md §2, §3). The
  // same flags as keepHeapSmall's (src/import/phone-threads.ts), which sets them again after a
  // worker thread's start has reset them. Other commands keep V8's defaults.
  builtin('node:v8').setFlagsFromString('--semi-space-growth-factor=1 --heap-growing-percent=25');
}
if (!dryRun && !offline && Number(process.versions.v8.split('.')[0]) < 12) {
  // undici parses HTTP with llhttp compiled to WebAssembly. On Node 20 (V8 11), the parser's hot
  // function is sent to the optimising compiler while the first response is parsed, and the
  // process then waits ~100 ms of CPU for that compile before it can exit: a one-page command took
  // twice as long. A tier-up budget 11× V8's default keeps short runs on the baseline compiler, and
  // long runs still tier up (a 30,000-contact listing took as long as before). Node 24 (V8 13) was
  // measured not to wait, and loading node:v8 costs ~2 ms: below V8 12, and only for a command
  // that may send a request (BENCHMARKS.md §4).
  builtin('node:v8').setFlagsFromString('--wasm-tiering-budget=20000000');
}

/**
 * dist/ is CommonJS (scripts/build.mjs). With --verbose, Node's own `require` loads it, so that a
 * stack trace maps back to src/ (source maps cost start-up time, so only then; they must be on
 * before dist/ loads).
 */
function viaNode() {
  process.setSourceMapsEnabled(true);
  return require('../dist/main.cjs');
}

/**
 * Otherwise dist/ is compiled with V8's code cache made after the command has run (docs/cli.md,
 * "Code cache"; BENCHMARKS.md §4). Node's own compile cache (≥ 22.8) is written when a file is
 * compiled, before anything runs, so it holds only what V8 compiles eagerly: every function a
 * command calls was compiled again on every start. Node 20 has no such cache at all. A script's
 * `createCachedData()` after the run holds every function compiled so far, so the cache is kept per
 * command (the first two words): the next `contacts ls` finds all it needs compiled. V8 checks
 * each cache against its source's length and its own version and flags; the build's id (a hash of
 * what esbuild wrote, in each file's first line) names the folder, so a rebuild never meets an old
 * cache.
 */
function viaCodeCache() {
  const fs = builtin('node:fs');
  const path = builtin('node:path');
  const vm = builtin('node:vm');
  const dist = path.join(__dirname, '..', 'dist');
  const mainFile = path.join(dist, 'main.cjs');
  const mainSource = fs.readFileSync(mainFile, 'utf8');
  const build = /callctl-build:([0-9a-f]+)/.exec(mainSource.slice(0, 200))?.[1];
  const root = codeCacheRoot();
  const words = [];
  for (const a of argv) {
    if (a.startsWith('-')) continue;
    if (words.length === 2 || !/^[a-z_][a-z-]{0,15}$/.test(a)) break;
    words.push(a);
  }
  // A help and a dry run set other V8 flags than the same words' real run: caches of their own.
  const key = `${words.join('-') || 'callctl'}${dryRun ? '-dry-run' : help ? '-help' : ''}`;
  const dir = root !== undefined && build !== undefined ? path.join(root, `${build}-${process.version}-${process.arch}`, key) : undefined;
  const toWrite = [];
  const modules = new Map();
  let nodeRequire;
  const load = (file, known) => {
    const done = modules.get(file);
    if (done !== undefined) return done.exports;
    const module = { exports: {} };
    modules.set(file, module);
    const source = known ?? fs.readFileSync(file, 'utf8');
    const cacheFile = dir === undefined ? undefined : path.join(dir, `${path.relative(dist, file).replaceAll(path.sep, '_')}.bin`);
    let cachedData;
    try {
      if (cacheFile !== undefined) cachedData = fs.readFileSync(cacheFile);
    } catch {}
    // One line with the source's first, as Node wraps a CommonJS module: line numbers stay right.
    const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData });
    if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected)) toWrite.push([script, cacheFile]);
    const dirname = path.dirname(file);
    const require = (id) => (id.startsWith('.') ? load(path.resolve(dirname, id)) : (builtin(id) ?? (nodeRequire ??= builtin('node:module').createRequire(file))(id)));
    script.runInThisContext().call(module.exports, module.exports, require, module, file, dirname);
    return module.exports;
  };
  if (dir !== undefined) process.once('exit', () => saveCodeCache(root, build, toWrite));
  return load(mainFile, mainSource);
}

/** The per-user cache folder (undefined: none — NODE_DISABLE_COMPILE_CACHE, or no home). */
function codeCacheRoot() {
  const env = process.env;
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const path = builtin('node:path');
  let base = process.platform === 'win32' ? env.LOCALAPPDATA : process.platform === 'darwin' ? undefined : env.XDG_CACHE_HOME;
  if (!base) {
    let home;
    try {
      home = builtin('node:os').homedir();
    } catch {
      return undefined;
    }
    if (!home) return undefined;
    base = process.platform === 'win32' ? path.join(home, 'AppData', 'Local') : process.platform === 'darwin' ? path.join(home, 'Library', 'Caches') : path.join(home, '.cache');
  }
  return path.join(base, 'callctl', 'code-cache');
}

/**
 * At exit, the caches that were missing or rejected, each written whole (a temporary file renamed)
 * so that a process beside this one never reads half of one. Folders of other builds unused for a
 * week go. A cache is only a cache: any error here is ignored.
 */
function saveCodeCache(root, build, toWrite) {
  if (toWrite.length === 0) return;
  const fs = builtin('node:fs');
  const path = builtin('node:path');
  try {
    for (const [script, file] of toWrite) {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      const part = `${file}.${process.pid}.part`;
      fs.writeFileSync(part, script.createCachedData(), { mode: 0o600 });
      fs.renameSync(part, file);
    }
    const weekAgo = Date.now() - 7 * 24 * 3600 * 1000;
    for (const name of fs.readdirSync(root)) {
      const other = path.join(root, name);
      if (!name.startsWith(`${build}-`) && /^[0-9a-f]+-v/.test(name) && fs.statSync(other).mtimeMs < weekAgo) fs.rmSync(other, { recursive: true, force: true });
    }
  } catch {}
}

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { readFileSync } = builtin('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(`${__dirname}/../package.json`, 'utf8')).version}\n`);
} else {
  const verbose = argv[0] !== '__complete' && (argv.includes('--verbose') || argv.includes('-v'));
  const { complete, main, systemDeps } = verbose ? viaNode() : viaCodeCache();
  const deps = systemDeps();
  // A TAB in a shell that sourced `callctl completion …`: candidates for the word under the cursor.
  // As an ES module's top-level await did: a run whose promise never settles (the event loop
  // emptied under it) exits 13, not 0; a rejection is thrown (exit 1, with its stack).
  process.exitCode = 13;
  (argv[0] === '__complete' ? complete(argv.slice(1), deps.io, deps.env) : main(argv, deps)).then((code) => {
    process.exitCode = code;
  });
}
