/**
 * What a key may do, as far as the service's answers show, without changing anything
 * (docs/commands/auth.md, "What a key may do"): `login` and `auth status` share it.
 *
 * - Works, and reads: `GET /contacts?limit=1`. 401: the key is refused. 403: the key is known
 *   but may not read contacts.
 * - Writes: `PATCH /contacts/<an id that cannot exist>` with an empty body. Nothing can change:
 *   the contact does not exist, and a PATCH changes only the fields sent (docs/api.md) — none.
 *   403 means the key may not write; 404 means the service let the key through to look the
 *   contact up, i.e. it checks write permission first (as the sandbox does) and the key has it.
 *   Any other answer (400, 405, 422: the service checks something else first) leaves write
 *   unknown until a real write. The seed does not show the order of a real service's checks:
 *   were it to look the id up before the scope, a read-only key would show "write: yes" here,
 *   and its first write is still refused cleanly (403, exit 3).
 */
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import { LIST_PAGE } from '../../http/paginate.js';

/** What the answers showed. `read`/`write`: true, false, or null when no answer told. */
export interface KeyCheck {
  /** The service accepted the key (it was not refused with 401). */
  ok: boolean;
  /** The HTTP status of the check request (`GET /contacts?limit=1`). */
  status: number;
  read: boolean | null;
  write: boolean | null;
  /** The service's words when it refused something (401 or 403), else undefined. */
  message?: string;
  /** How write was learnt: the probe's status, or why it was not tried. */
  writeSeen: string;
}

const PROBE_ID_PREFIX = 'callctl-key-check-';

/** The status of a finished request, or rethrows what is not an answer (network, timeout). */
async function statusOf(send: () => Promise<{ status: number }>): Promise<{ status: number; message?: string }> {
  try {
    return { status: (await send()).status };
  } catch (err) {
    if (err instanceof ApiError && err.status !== undefined) return { status: err.status, ...(err.serverMessage !== undefined ? { message: err.serverMessage } : {}) };
    throw err;
  }
}

/** Checks the key with one read and, unless `write` is false, one write that changes nothing. */
export async function checkKey(client: ApiClient, o: { write: boolean }): Promise<KeyCheck> {
  const read = await statusOf(() => client.request({ method: 'GET', path: '/contacts', query: { limit: 1 }, shape: LIST_PAGE }));
  const ok = read.status !== 401;
  const check: KeyCheck = {
    ok,
    status: read.status,
    read: read.status < 300 ? true : read.status === 403 ? false : null,
    write: null,
    writeSeen: ok ? 'not checked' : 'the key was refused',
    ...(read.message !== undefined && (read.status === 401 || read.status === 403) ? { message: read.message } : {}),
  };
  if (!ok || !o.write) return check;
  const id = `${PROBE_ID_PREFIX}${randomUUID()}`;
  const probe = await statusOf(() => client.request({ method: 'PATCH', path: `/contacts/${encodeURIComponent(id)}`, body: {} }));
  check.write = probe.status === 403 ? false : probe.status === 404 || probe.status < 300 ? true : null;
  check.writeSeen = `a PATCH of a contact that does not exist answered ${probe.status}${probe.status === 403 && probe.message ? `: ${probe.message}` : ''}`;
  return check;
}

/** "read: yes, write: no (…)": what `login` and `auth status` print. */
export function describeCheck(c: KeyCheck): string {
  const word = (v: boolean | null) => (v === true ? 'yes' : v === false ? 'no' : 'unknown');
  const write = c.write === null ? 'unknown until a write' : word(c.write);
  return `read: ${word(c.read)}${c.read === false && c.message ? ` (${c.message})` : ''}; write: ${write} (${c.writeSeen})`;
}
