/**
 * The worker thread of phone-threads.ts: batches of phone texts and their regions in (each row
 * has its own, from its country column), each one's `toE164` result out (encoded as one string,
 * in the same order). Nothing else runs here.
 */
import { parentPort } from 'node:worker_threads';
import { encodePhoneResult, toE164Uncached } from '../phone/e164.js';

const port = parentPort;
if (!port) throw new Error('phone-worker.js runs as a worker thread');
port.on('message', ({ texts, regions }: { texts: string[]; regions: string[] }) => {
  const out = new Array<string>(texts.length);
  for (let i = 0; i < texts.length; i++) out[i] = encodePhoneResult(toE164Uncached(texts[i] as string, regions[i] || undefined));
  port.postMessage(out);
});
port.postMessage('ready');
