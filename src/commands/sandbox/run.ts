/** `callctl sandbox`: runs the local API until SIGINT/SIGTERM, then saves `--data` and exits 0. */
import type { Context } from '../../context.js';
import { RuntimeError } from '../../errors.js';

export async function run(ctx: Context, _args: string[], opts: Record<string, unknown>): Promise<number> {
  const { startSandbox } = await import('../../sandbox/index.js');
  const port = opts.port as number;
  let sandbox;
  try {
    sandbox = await startSandbox({
      port,
      host: opts.host as string,
      rateLimit: opts.rateLimit as number,
      ...(opts.burst !== undefined ? { burst: opts.burst as number } : {}),
      limiter: opts.limiter as 'bucket',
      windowMs: opts.window as number,
      maxInflight: opts.maxInflight as number,
      latencyMs: opts.latency as number,
      rateLimitHeaders: opts.ratelimitHeaders as 'none',
      faults: opts.faults as number,
      faultDelayMs: opts.faultDelay as number,
      seed: opts.seed as number,
      ...(opts.data !== undefined ? { dataFile: opts.data as string } : {}),
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new RuntimeError('port_in_use', `port ${port} is already in use`, 'pick another with --port, or --port 0 for a free one');
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new RuntimeError('bad_host', `cannot bind to ${String(opts.host)}`, 'use 127.0.0.1 or ::1');
    // JSON.parse quotes the file's text in its message, newlines included: keep the error one line.
    if (err instanceof SyntaxError) throw new RuntimeError('bad_data', `--data ${String(opts.data)} is not a sandbox state file: ${err.message.replace(/\s+/g, ' ')}`, 'remove it or point --data elsewhere');
    throw err;
  }
  const info = { baseUrl: sandbox.baseUrl, secretKey: sandbox.secretKey, readOnlyKey: sandbox.readOnlyKey, widgetKey: sandbox.widgetKey };
  // These are the sandbox's own throwaway keys: printing them is the point (docs/cli.md, sandbox).
  if (ctx.format === 'json') ctx.deps.io.stdout.write(`${JSON.stringify(info)}\n`);
  else {
    ctx.deps.io.stdout.write(
      [
        `sandbox listening on ${sandbox.baseUrl}`,
        `  secret key     ${info.secretKey}`,
        `  read-only key  ${info.readOnlyKey}`,
        `  widget key     ${info.widgetKey}`,
        `  rate limit     ${describeLimit(opts)}${opts.faults ? `, faults ${String(opts.faults)}` : ''}`,
        '',
        `  export CALLCTL_BASE_URL=${info.baseUrl} CALLCTL_API_KEY=${info.secretKey}`,
        '  (Ctrl-C stops it)',
        '',
      ].join('\n'),
    );
  }
  await new Promise<void>((stop) => {
    const offs = [ctx.deps.onSignal('SIGINT', () => stop()), ctx.deps.onSignal('SIGTERM', () => stop())];
    ctx.onClose(() => offs.forEach((off) => off()));
  });
  await sandbox.close();
  ctx.log.info('sandbox stopped');
  return 0;
}

function describeLimit(opts: Record<string, unknown>): string {
  const headers = `headers ${String(opts.ratelimitHeaders)}`;
  const latency = opts.latency ? `, latency ${String(opts.latency)} ms` : '';
  switch (opts.limiter) {
    case 'concurrency':
      return `at most ${String(opts.maxInflight)} in flight, ${headers}${latency}`;
    case 'window':
    case 'sliding':
      return `${opts.limiter === 'window' ? 'fixed' : 'sliding'} window of ${String(opts.window)} ms at ${String(opts.rateLimit)}/s, ${headers}${latency}`;
    default:
      return opts.rateLimit === 0 ? `off${latency}` : `${String(opts.rateLimit)}/s, burst ${String(opts.burst ?? opts.rateLimit)}, ${headers}${latency}`;
  }
}
