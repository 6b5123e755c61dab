/**
 * `callctl api <METHOD> <path>`: any endpoint, through the same client (auth, limiter, retries,
 * errors). `-f key=value` fields become the query of a GET or the JSON body otherwise; values that
 * read as JSON numbers, booleans or null are sent as such.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Method } from '../../http/client.js';
import { pages } from '../../http/paginate.js';
import { createListWriter, writeOut } from '../../output/writers.js';
import { requireFormat } from '../../output/format-check.js';

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];

function fieldValue(raw: string): unknown {
  if (raw === 'true' || raw === 'false' || raw === 'null' || /^-?\d+(\.\d+)?$/.test(raw)) return JSON.parse(raw);
  return raw;
}

async function readInput(ctx: Context, source: string): Promise<unknown> {
  let text: string;
  if (source === '-') {
    const chunks: Buffer[] = [];
    for await (const c of ctx.deps.io.stdin) chunks.push(Buffer.from(c as Buffer));
    text = Buffer.concat(chunks).toString('utf8');
  } else {
    try {
      text = readFileSync(resolve(ctx.deps.cwd, source), 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read --input ${source}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--input is not valid JSON: ${(err as Error).message}`);
  }
}

export async function run(ctx: Context, args: string[], opts: Record<string, unknown>): Promise<number> {
  requireFormat('callctl api', ctx.globals, ['json', 'ndjson'], 'the JSON body as the API returned it');
  const method = (args[0] as string).toUpperCase();
  if (!METHODS.includes(method)) throw new UsageError(`unknown method ${args[0] as string}`, `use one of ${METHODS.join(', ')}`);
  const rawPath = args[1] as string;
  if (/^[a-z]+:\/\//i.test(rawPath)) throw new UsageError('give a path under the base URL, not a full URL', 'e.g. callctl api GET /contacts');
  const [pathPart, queryPart] = rawPath.split('?', 2) as [string, string | undefined];
  const path = `/${pathPart.replace(/^\/+/, '')}`;
  if (path.split('/').some((s) => s === '..' || s === '.')) throw new UsageError(`the path ${rawPath} leaves the API base`, 'paths are relative to the base URL (/api/v1)');

  if (method === 'DELETE' && opts.confirm !== true) {
    throw new UsageError(`DELETE ${path} is irreversible (an erasure through the escape hatch is still an erasure); nothing was sent`, `add --confirm: callctl api DELETE ${path} --confirm`);
  }

  const fields: Record<string, unknown> = {};
  for (const f of (opts.field as string[] | undefined) ?? []) {
    const eq = f.indexOf('=');
    if (eq <= 0) throw new UsageError(`-f ${f} is not key=value`);
    fields[f.slice(0, eq)] = fieldValue(f.slice(eq + 1));
  }
  let body: unknown;
  const query: Record<string, string> = Object.fromEntries(new URLSearchParams(queryPart ?? ''));
  if (opts.input !== undefined) body = await readInput(ctx, String(opts.input));
  if (method === 'GET' || method === 'DELETE') {
    if (body !== undefined) throw new UsageError(`--input makes no sense with ${method}`);
    for (const [k, v] of Object.entries(fields)) query[k] = String(v);
  } else if (Object.keys(fields).length > 0) {
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) throw new UsageError('-f fields need --input to be a JSON object');
    body = { ...((body as Record<string, unknown>) ?? {}), ...fields };
  }

  const client = await ctx.api();
  const out = ctx.deps.io.stdout;
  if (opts.paginate === true) {
    if (method !== 'GET') throw new UsageError('--paginate follows the pages of a GET');
    const format = ctx.format === 'ndjson' ? 'ndjson' : 'json';
    const writer = await createListWriter(out, format, []);
    const page = query.page !== undefined ? Number(query.page) : undefined;
    const limit = query.limit !== undefined ? Number(query.limit) : undefined;
    delete query.page;
    delete query.limit;
    for await (const items of pages(client, { path, query, ...(page ? { page } : {}), ...(limit ? { limit } : {}) })) await writer.write(items);
    await writer.end();
    return 0;
  }
  const res = await client.request({ method: method as Method, path, query, ...(body !== undefined ? { body } : {}) });
  if (res.body !== undefined) await writeOut(out, `${typeof res.body === 'string' ? res.body : ctx.format === 'ndjson' ? JSON.stringify(res.body) : JSON.stringify(res.body, null, 2)}\n`);
  else ctx.log.info(`${res.status} (no body)`);
  return 0;
}
