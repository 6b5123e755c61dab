// Start-up, two builds against each other, interleaved: each round runs `node -e 0`, build A and
// build B in rotating order, so all three meet the same load (on this shared machine, runs taken
// one after the other drift by ±0.15× within minutes). Prints the median wall time of `node -e 0`
// and each build's ratio to it. The environment is cleaned: PATH and HOME only (NODE_EXTRA_CA_CERTS
// alone makes every Node start read a CA file, which can triple a bare `node -e 0`).
//   node bench/startup-ab.mjs [--node=<path>] [--rounds=40] <binA> <binB> -- <callctl args…>
// `contacts ls` needs CALLCTL_BASE_URL and CALLCTL_API_KEY (passed through) for a running sandbox.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const opt = (name, dflt) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? dflt;
const sep = argv.indexOf('--');
const [binA, binB] = argv.slice(0, sep).filter((a) => !a.startsWith('--'));
const args = argv.slice(sep + 1);
if (sep < 0 || !binA || !binB) throw new Error('usage: startup-ab.mjs [--node=…] [--rounds=…] <binA> <binB> -- <args…>');
const node = opt('node', process.execPath);
const rounds = Number(opt('rounds', 40));
const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  CALLCTL_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'callctl-ab-')),
  CALLCTL_BASE_URL: process.env.CALLCTL_BASE_URL,
  CALLCTL_API_KEY: process.env.CALLCTL_API_KEY,
};
const cmds = { node: ['-e', '0'], A: [binA, ...args], B: [binB, ...args] };
const keys = Object.keys(cmds);
const times = { node: [], A: [], B: [] };
for (let i = 0; i < rounds + 3; i++) {
  for (let j = 0; j < keys.length; j++) {
    const k = keys[(i + j) % keys.length];
    const start = process.hrtime.bigint();
    const r = spawnSync(node, cmds[k], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0) throw new Error(`${cmds[k].join(' ')} failed (${r.status}): ${r.stderr}`);
    if (i >= 3) times[k].push(ms);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(times.node);
console.log(`| \`callctl ${args.join(' ')}\` | ${base.toFixed(1)} ms | ${(median(times.A) / base).toFixed(2)} | ${(median(times.B) / base).toFixed(2)} |`);
