// Preloaded with `node --import` by the start-up test: records every module the process loads
// into the file named by CALLCTL_TEST_IMPORTS, so the test can prove what --help does not load:
// the entry script (the bin), whatever the ES module loader resolves (nothing more, if start-up is
// as it should be), and every file bin/callctl.js compiles from dist/ (it compiles them itself,
// with V8's code cache: a vm.Script named after the file).
import { register } from 'node:module';
import { appendFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';

const file = process.env.CALLCTL_TEST_IMPORTS;
appendFileSync(file, `${pathToFileURL(process.argv[1]).href}\n`);
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => appendFileSync(file, `${url}\n`));
port1.unref();
register('./record-imports-hooks.mjs', { parentURL: import.meta.url, data: { port: port2 }, transferList: [port2] });
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(code, options) {
    if (typeof options?.filename === 'string') appendFileSync(file, `${pathToFileURL(options.filename).href}\n`);
    super(code, options);
  }
};
