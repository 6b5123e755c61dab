/**
 * `callctl login`: reads the secret key from a hidden prompt (TTY) or stdin, checks its kind,
 * verifies it with one cheap request, and stores it with the base URL in the profile (0600).
 * Nothing is stored when the key is refused.
 */
import type { Context } from '../../context.js';
import { ApiError, AuthError, UsageError } from '../../errors.js';
import type { InStream } from '../../deps.js';
import type { LoginOptions } from './options.js';

/** Reads a line from the terminal without echoing it. */
function hiddenPrompt(ctx: Context, stdin: InStream): Promise<string> {
  // Echo goes off before the prompt shows: a key pasted the moment the prompt appears must not
  // be echoed by the terminal (a test on a real pty caught exactly that).
  stdin.setRawMode?.(true);
  ctx.deps.io.stderr.write('Secret key (input hidden): ');
  return new Promise((done, fail) => {
    let key = '';
    stdin.setEncoding('utf8');
    const finish = (err?: Error) => {
      stdin.setRawMode?.(false);
      stdin.off('data', onData);
      stdin.pause();
      ctx.deps.io.stderr.write('\n');
      if (err) fail(err);
      else done(key);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return finish();
        if (ch === '\u0003') return finish(new UsageError('login cancelled'));
        if (ch === '\u007f' || ch === '\b') key = key.slice(0, -1);
        else key += ch;
      }
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}

async function readKey(ctx: Context): Promise<string> {
  const stdin = ctx.deps.io.stdin;
  if (stdin.isTTY) return (await hiddenPrompt(ctx, stdin)).trim();
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString('utf8').trim().split(/\r?\n/)[0]?.trim() ?? '';
}

export async function run(ctx: Context, o: LoginOptions): Promise<number> {
  const settings = await ctx.settings();
  const { checkBaseUrl, checkSecretKey, maskKey } = await import('../../http/safety.js');
  if (settings.baseUrl === undefined) throw new UsageError('no base URL to log in to', 'add --base-url https://…/api/v1');
  const baseUrl = checkBaseUrl(settings.baseUrl);
  const raw = await readKey(ctx);
  if (raw === '') throw new AuthError('no key given', 'paste the secret key (sk_live_…) at the prompt, or pipe it: echo "$KEY" | callctl login');
  const key = checkSecretKey(raw);
  ctx.log.addSecret(key);

  if (o.verify) {
    const { createApiClient } = await import('../../http/client.js');
    const client = await createApiClient({ settings: { ...settings, apiKey: key, baseUrl: baseUrl.href }, deps: ctx.deps, log: ctx.log });
    ctx.onClose(() => client.close());
    try {
      await client.request({ method: 'GET', path: '/contacts', query: { limit: 1 } });
    } catch (err) {
      // A key without contacts:read is still a key: store it, and say what it cannot do.
      if (err instanceof ApiError && err.status === 403) ctx.log.warn(`the key cannot read contacts (${err.serverMessage ?? '403'}); stored anyway`);
      else throw err;
    }
  }
  const store = await ctx.config();
  await store.writeProfile(settings.profileName, { ...store.profile(settings.profileName), apiKey: key, baseUrl: baseUrl.href.replace(/\/+$/, '') });
  ctx.log.info(`logged in: profile "${settings.profileName}", key ${maskKey(key)}, ${baseUrl.href.replace(/\/+$/, '')}${o.verify ? '' : ' (not verified)'}`);
  ctx.log.info(`saved in ${store.path}`);
  return 0;
}
