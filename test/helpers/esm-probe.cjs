// Preloaded with `node -r` (a CommonJS preload, so that the preload itself starts no ES module
// loader): at exit, writes the ES module loader's internals Node loaded into CALLCTL_TEST_ESM.
// Node 20 loads `internal/modules/esm/loader` only when something is run as an ES module.
const { writeFileSync } = require('node:fs');
process.on('exit', () => {
  writeFileSync(process.env.CALLCTL_TEST_ESM, JSON.stringify(process.moduleLoadList.filter((m) => m.includes('modules/esm/loader'))));
});
