/**
 * `callctl login` / `callctl auth login`: reads the secret key from a hidden prompt (TTY) or
 * stdin, checks its kind, learns what it may do (commands/auth/check.ts), and stores it with the
 * base URL in the profile — the key in the system keychain, or in the 0600 file (config/key.ts).
 * Nothing is stored when the key is refused.
 */
import type { Context } from '../../context.js';
import { AuthError, UsageError } from '../../errors.js';
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
  const shownUrl = baseUrl.href.replace(/\/+$/, '');
  const raw = await readKey(ctx);
  if (raw === '') throw new AuthError('no key given', 'paste the secret key (sk_live_…) at the prompt, or pipe it: echo "$KEY" | callctl login');
  const key = checkSecretKey(raw);
  ctx.log.addSecret(key);

  let may = '';
  if (o.verify) {
    const { createApiClient } = await import('../../http/client.js');
    const { checkKey, describeCheck } = await import('../auth/check.js');
    const client = await createApiClient({ settings: { ...settings, apiKey: key, baseUrl: baseUrl.href }, deps: ctx.deps, log: ctx.log });
    ctx.onClose(() => client.close());
    const c = await checkKey(client, { write: true });
    if (!c.ok) throw new AuthError(`the service refused this key (401${c.message ? `: ${c.message}` : ''}); nothing stored`, 'check that it is the live secret key of this account');
    // A key that cannot read, or cannot write, is still a key: stored, with one line each.
    if (c.read === false) ctx.log.warn(`the key cannot read contacts (${c.message ?? '403'}); stored anyway`);
    if (c.write === false) ctx.log.warn(`this key cannot write (${c.writeSeen}): imports, edits, outcomes and erasures with it will be refused`);
    may = `; ${describeCheck(c)}`;
  }
  const store = await ctx.config();
  const { saveKey } = await import('../../config/key.js');
  const saved = await saveKey(store, settings.profileName, key, { baseUrl: shownUrl }, o.insecureStorage);
  if (saved.fallback !== undefined) ctx.log.warn(`${saved.fallback}: the key is kept in ${store.path} (0600) instead`);
  if (saved.leftover !== undefined) ctx.log.warn(saved.leftover);
  ctx.log.info(`logged in: profile "${settings.profileName}", key ${maskKey(key)}, ${shownUrl}${o.verify ? may : ' (not verified)'}`);
  ctx.log.info(saved.storage === 'keychain' ? `key stored in the system keychain (service "${store.keychainService}", account "${settings.profileName}"); settings in ${store.path}` : `saved in ${store.path}`);
  return 0;
}
