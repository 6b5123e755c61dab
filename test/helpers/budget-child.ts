// A process that joins a shared budget on Redis, is granted `n` starts, says so, and then waits
// to be killed (test/redis/shared.test.ts): `node --import tsx budget-child.ts <url> <id> <n>`.
import { connectShared } from '../../src/pace/index.js';

const [url, id, n] = process.argv.slice(2) as [string, string, string];
const quiet = () => undefined;
const log = { warn: quiet, info: quiet, debug: quiet, addSecret: quiet } as unknown as Parameters<typeof connectShared>[0]['log'];
const budget = await connectShared({ redisUrl: url, id, log, required: true });
if (!budget) process.exit(1);
budget.start({ now: () => Date.now(), follow: quiet, lost: () => process.exit(2) });
await Promise.all(Array.from({ length: Number(n) }, () => budget.acquire()));
process.stdout.write('granted\n');
setInterval(quiet, 60_000);
