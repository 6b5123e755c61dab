// Preloaded with `node --import` by the start-up test: records every module the process resolves
// into the file named by CALLCTL_TEST_IMPORTS, so the test can prove what --help does not load.
import { register } from 'node:module';
import { appendFileSync } from 'node:fs';

const file = process.env.CALLCTL_TEST_IMPORTS;
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => appendFileSync(file, `${url}\n`));
port1.unref();
register('./record-imports-hooks.mjs', { parentURL: import.meta.url, data: { port: port2 }, transferList: [port2] });
