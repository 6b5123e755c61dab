/**
 * `callctl auth status [--all] [--json]`: for the profile in effect (or every stored one), the
 * base URL, where the key lives (`keychain`, `file`, `env`), the key masked, whether the service
 * accepts it and what it may do (check.ts). `--json`: one object per profile, one per line —
 * `{"profile","baseUrl","storage","key","ok","status","read","write","error"}`. Exit 3 when a key
 * is refused or missing, else the first other failure's code.
 */
import type { Context } from '../../context.js';
import { EXIT, exitCodeOf, CallctlError } from '../../errors.js';
import { resolveSettings } from '../../config/settings.js';
import type { ConfigStore } from '../../config/store.js';
import { requireFormat } from '../../output/format-check.js';
import { maskKey } from '../../output/mask.js';
import type { AuthStatusOptions } from './options.js';

/** One profile's line of `--json` (docs/commands/auth.md, "auth status"). */
interface ProfileStatus {
  profile: string;
  baseUrl: string | null;
  storage: 'keychain' | 'file' | 'env' | null;
  key: string | null;
  ok: boolean;
  status: number | null;
  read: boolean | null;
  write: boolean | null;
  error: string | null;
}

/** Control characters in a server's words are shown, not obeyed. */
const plain = (s: string) => s.replace(/[\u0000-\u001f\u007f]/g, ' ');

export async function run(ctx: Context, o: AuthStatusOptions): Promise<number> {
  requireFormat('callctl auth status', ctx.globals, ['table', 'json', 'ndjson'], 'one block per profile, or one JSON object per profile with --json');
  const store = await ctx.config();
  const names = o.all ? (store.names().length > 0 ? store.names() : [ctx.profileName]) : [ctx.profileName];
  const out = ctx.deps.io.stdout;
  let exit: number = EXIT.ok;
  for (const name of names) {
    const { status, code, notes } = await statusOf(ctx, store, name);
    if (code === EXIT.auth || exit === EXIT.ok) exit = code === EXIT.ok ? exit : code;
    if (ctx.format === 'table') out.write(`${blockOf(status, notes)}\n`);
    else out.write(`${JSON.stringify(status)}\n`);
  }
  return exit;
}

/** What a person reads: one block per profile. */
function blockOf(s: ProfileStatus, notes: { where: string; works: string; may: string | undefined }): string {
  const lines = [`${s.profile}`, `  base URL  ${s.baseUrl ?? '(none)'}`, `  key       ${s.key ?? (notes.where ? 'not read' : '(none)')}${notes.where ? `, ${notes.where}` : ''}`, `  works     ${notes.works}`];
  if (notes.may !== undefined) lines.push(`  may       ${notes.may}`);
  return `${lines.join('\n')}\n`;
}

async function statusOf(ctx: Context, store: ConfigStore, name: string): Promise<{ status: ProfileStatus; code: number; notes: { where: string; works: string; may: string | undefined } }> {
  const status: ProfileStatus = { profile: name, baseUrl: null, storage: null, key: null, ok: false, status: null, read: null, write: null, error: null };
  const notes = { where: '', works: '', may: undefined as string | undefined };
  try {
    const settings = resolveSettings({ ...ctx.globals, profile: name }, ctx.deps.env, store.profile(name));
    status.baseUrl = settings.baseUrl ?? null;
    status.storage = settings.keyStorage ?? null;
    notes.where =
      settings.keyStorage === 'keychain' ? `in the system keychain (service "${settings.keychain?.service}", account "${settings.keychain?.account}")`
      : settings.keyStorage === 'file' ? `in ${store.path}`
      : settings.keyStorage === 'env' ? 'from CALLCTL_API_KEY'
      : '';
    // A key file others can read is refused here as everywhere (docs/commands/auth.md, "Where the key lives").
    if (settings.keyStorage === 'file') store.checkKeyPrivate();
    const { readKey } = await import('../../config/key.js');
    const key = await readKey(settings);
    ctx.log.addSecret(key);
    if (key !== undefined) status.key = maskKey(key);
    const { createApiClient } = await import('../../http/client.js');
    const { checkKey, describeCheck } = await import('./check.js');
    const client = await createApiClient({ settings: { ...settings, apiKey: key }, deps: ctx.deps, log: ctx.log });
    try {
      const c = await checkKey(client, { write: true });
      Object.assign(status, { ok: c.ok, status: c.status, read: c.read, write: c.write });
      if (!c.ok) {
        status.error = `the service refused the key (401${c.message ? `: ${plain(c.message)}` : ''})`;
        notes.works = `no: ${status.error}`;
        return { status, code: EXIT.auth, notes };
      }
      notes.works = `yes (GET /contacts answered ${c.status})`;
      notes.may = plain(describeCheck(c));
      return { status, code: EXIT.ok, notes };
    } finally {
      await client.close();
    }
  } catch (err) {
    const e = err as Error;
    status.error = plain(e instanceof CallctlError ? `${e.message}${e.hint ? ` (${e.hint})` : ''}` : e.message);
    notes.works = `no: ${status.error}`;
    return { status, code: exitCodeOf(err), notes };
  }
}
