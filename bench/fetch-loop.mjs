// The reference for the unthrottled figure: the least any client pays — a hand-written loop of
// keep-alive fetch POSTs at the same concurrency, no parsing, no checks, no journal.
import { readFileSync } from 'node:fs';

const [baseUrl, key, file, concurrency] = process.argv.slice(2);
const lines = readFileSync(file, 'utf8').trim().split('\n').slice(1);
let next = 0;
async function worker() {
  while (next < lines.length) {
    const [firstName, lastName, phone, email] = lines[next++].split(',');
    const res = await fetch(`${baseUrl}/contacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ firstName, lastName, phone, email }),
    });
    await res.arrayBuffer();
  }
}
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
