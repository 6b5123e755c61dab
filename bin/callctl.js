#!/usr/bin/env node
// The only place that touches the process's exit: everything below returns an exit code.
// `callctl --version` alone is answered here, without loading the command tree (start-up budget).
import module from 'node:module';

// Node ≥ 22.8 keeps compiled code on disk between runs; older Node has no such call.
module.enableCompileCache?.();
const argv = process.argv.slice(2);
// An import's dry run allocates as fast as the CPU goes, and V8 would size its young generation
// (and then the old one) to that rate — tens of megabytes of garbage that count in the peak RSS.
// Kept at its start size here, before the command tree loads (it only ever grows), and the old
// generation grows by a quarter at a time; flags for the whole process, its worker threads
// included (BENCHMARKS.md §3; HEAP_FLAGS in src/import/phone-threads.ts, which sets them again
// once its worker thread has started). Other commands keep V8's defaults.
if (argv.includes('import') && argv.includes('--dry-run')) {
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--semi-space-growth-factor=1 --heap-growing-percent=25');
}
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { readFileSync } = await import('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else if (argv[0] === '__complete') {
  // A TAB in a shell that sourced `callctl completion …`: candidates for the word under the cursor.
  const [{ complete }, { systemDeps }] = await Promise.all([import('../dist/commands/completion/complete.js'), import('../dist/deps.js')]);
  const deps = systemDeps();
  process.exitCode = await complete(argv.slice(1), deps.io, deps.env);
} else {
  // dist/ is bundled; with --verbose a stack trace maps back to src/ (source maps cost start-up
  // time, so only then). It must be on before dist/ loads.
  if (argv.includes('--verbose') || argv.includes('-v')) process.setSourceMapsEnabled(true);
  const [{ main }, { systemDeps }] = await Promise.all([import('../dist/main.js'), import('../dist/deps.js')]);
  process.exitCode = await main(argv, systemDeps());
}
