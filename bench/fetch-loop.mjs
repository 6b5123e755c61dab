// The reference for the unthrottled figure: the least any client pays — a hand-written loop of
// keep-alive fetch POSTs at the same concurrency, no parsing, no checks, no journal.
import { readFileSync } from 'node:fs';
import { postContact } from './post-contact.mjs';

const [baseUrl, key, file, concurrency] = process.argv.slice(2);
const lines = readFileSync(file, 'utf8').trim().split('\n').slice(1);
let next = 0;
async function worker() {
  while (next < lines.length) {
    await postContact(baseUrl, key, lines[next++]);
  }
}
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
