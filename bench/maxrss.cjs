// Preloaded into a benchmarked process (node -r): reports its peak RSS and the CPU time it used
// (user + system, which a busy shared machine inflates far less than wall time) on exit, on fd 3 if open.
const { writeSync } = require('node:fs');
process.on('exit', () => {
  const usage = process.resourceUsage();
  const line = `MAXRSS_KB ${usage.maxRSS} CPU_US ${usage.userCPUTime + usage.systemCPUTime}\n`;
  try {
    writeSync(3, line);
  } catch {
    process.stderr.write(line);
  }
});
