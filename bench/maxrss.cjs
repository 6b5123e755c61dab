// Preloaded into a benchmarked process (node -r): reports its peak RSS on exit, on fd 3 if open.
const { writeSync } = require('node:fs');
process.on('exit', () => {
  const line = `MAXRSS_KB ${process.resourceUsage().maxRSS}\n`;
  try {
    writeSync(3, line);
  } catch {
    process.stderr.write(line);
  }
});
