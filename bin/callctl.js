#!/usr/bin/env node
// The only place that touches the process's exit: everything below returns an exit code.
import { main } from '../dist/main.js';
import { systemDeps } from '../dist/deps.js';

process.exitCode = await main(process.argv.slice(2), systemDeps());
