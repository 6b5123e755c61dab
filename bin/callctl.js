#!/usr/bin/env node
// The only place that touches the process's exit: everything below returns an exit code.
// `callctl --version` alone is answered here, without loading the command tree (start-up budget).
import module from 'node:module';

const argv = process.argv.slice(2);
const dryRun = argv.includes('import') && argv.includes('--dry-run');
// Node ≥ 22.8 keeps compiled code on disk between runs; older Node has no such call. That cache is
// keyed by V8's flags, which a dry run changes (below): it keeps a cache of its own, or every
// switch between a dry run and another command would throw the other's away (BENCHMARKS.md §4).
module.enableCompileCache?.(dryRun ? `${process.getBuiltinModule('node:os').tmpdir()}/node-compile-cache-callctl-dry-run` : undefined);
// An import's dry run allocates as fast as the CPU goes: V8's young generation is kept at its
// start size from here on, before the command tree loads (it only ever grows), instead of growing
// to 32 MB of mostly garbage. The rest is set when the dry run starts (keepHeapSmall in
// src/import/phone-threads.ts, BENCHMARKS.md §3). Other commands keep V8's defaults.
if (dryRun) (await import('node:v8')).setFlagsFromString('--semi-space-growth-factor=1');
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { readFileSync } = await import('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else if (argv[0] === '__complete') {
  // A TAB in a shell that sourced `callctl completion …`: candidates for the word under the cursor.
  const { complete, systemDeps } = await import('../dist/main.js');
  const deps = systemDeps();
  process.exitCode = await complete(argv.slice(1), deps.io, deps.env);
} else {
  // dist/ is bundled; with --verbose a stack trace maps back to src/ (source maps cost start-up
  // time, so only then). It must be on before dist/ loads.
  if (argv.includes('--verbose') || argv.includes('-v')) process.setSourceMapsEnabled(true);
  const { main, systemDeps } = await import('../dist/main.js');
  process.exitCode = await main(argv, systemDeps());
}
