/** `callctl sandbox`: runs the local API until SIGINT/SIGTERM, then saves `--data` and exits 0. */
import type { Context } from '../../context.js';
import { RuntimeError } from '../../errors.js';
import type { SandboxCommandOptions } from './options.js';

export async function run(ctx: Context, o: SandboxCommandOptions): Promise<number> {
  const { startSandbox } = await import('../../sandbox/index.js');
  const { port } = o;
  let sandbox;
  try {
    sandbox = await startSandbox(o);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new RuntimeError('port_in_use', `port ${port} is already in use`, 'pick another with --port, or --port 0 for a free one');
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new RuntimeError('bad_host', `cannot bind to ${o.host}`, 'use 127.0.0.1 or ::1');
    // JSON.parse quotes the file's text in its message, newlines included: keep the error one line.
    if (err instanceof SyntaxError) throw new RuntimeError('bad_data', `--data ${String(o.dataFile)} is not a sandbox state file: ${err.message.replace(/\s+/g, ' ')}`, 'remove it or point --data elsewhere');
    throw err;
  }
  // Listen for Ctrl-C before saying where the sandbox is: a script that reads the address and
  // stops it at once must find it stoppable.
  const stopped = new Promise<void>((stop) => {
    const offs = [ctx.deps.onSignal('SIGINT', () => stop()), ctx.deps.onSignal('SIGTERM', () => stop())];
    ctx.onClose(() => offs.forEach((off) => off()));
  });
  const info = { baseUrl: sandbox.baseUrl, secretKey: sandbox.secretKey, readOnlyKey: sandbox.readOnlyKey, widgetKey: sandbox.widgetKey };
  // These are the sandbox's own throwaway keys: printing them is the point (docs/commands/sandbox.md, "The command").
  if (ctx.format === 'json') ctx.deps.io.stdout.write(`${JSON.stringify(info)}\n`);
  else {
    ctx.deps.io.stdout.write(
      [
        `sandbox listening on ${sandbox.baseUrl}`,
        `  secret key     ${info.secretKey}`,
        `  read-only key  ${info.readOnlyKey}`,
        `  widget key     ${info.widgetKey}`,
        `  rate limit     ${describeLimit(o)}${o.faults ? `, faults ${String(o.faults)}` : ''}`,
        '',
        `  export CALLCTL_BASE_URL=${info.baseUrl} CALLCTL_API_KEY=${info.secretKey}`,
        '  (Ctrl-C stops it)',
        '',
      ].join('\n'),
    );
  }
  await stopped;
  await sandbox.close();
  ctx.log.info('sandbox stopped');
  return 0;
}

function describeLimit(o: SandboxCommandOptions): string {
  const headers = `headers ${o.rateLimitHeaders}`;
  const latency = (o.latencyMs ? `, latency ${o.latencyMs} ms` : '') + (o.wireDelayMs ? `, ${o.wireDelayMs} ms each way` : '');
  switch (o.limiter) {
    case 'concurrency':
      return `at most ${String(o.maxInflight)} in flight, ${headers}${latency}`;
    case 'window':
    case 'sliding':
      return `${o.limiter === 'window' ? 'fixed' : 'sliding'} window of ${String(o.windowMs)} ms at ${o.rateLimit}/s, ${headers}${latency}`;
    default:
      return o.rateLimit === 0 ? `off${latency}` : `${o.rateLimit}/s, burst ${String(o.burst ?? o.rateLimit)}, ${headers}${latency}`;
  }
}
