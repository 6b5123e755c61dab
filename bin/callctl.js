#!/usr/bin/env node
// The only place that touches the process's exit: everything below returns an exit code.
// `callctl --version` alone is answered here, without loading the command tree (start-up budget).
import module from 'node:module';

// Node ≥ 22.8 keeps compiled code on disk between runs; older Node has no such call.
module.enableCompileCache?.();
const argv = process.argv.slice(2);
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
