/**
 * `callctl api <METHOD> <path>`: any endpoint, through the same client (auth, limiter, retries,
 * errors). `-f key=value` fields become the query of a GET or the JSON body otherwise; values that
 * read as JSON numbers, booleans or null are sent as such.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { MAX_NESTING, nestedDeeperThan } from '../../http/answer.js';
import { pages } from '../../http/paginate.js';
import { escapeControls } from '../../output/escape.js';
import { createListWriter, writeOut } from '../../output/writers.js';
import { requireFormat } from '../../output/format-check.js';

import type { ApiOptions } from './options.js';

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
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--input is not valid JSON: ${(err as Error).message}`);
  }
  // Sending it would recurse as deep (JSON.stringify): refused as an answer nested so deep is.
  if (nestedDeeperThan(text, MAX_NESTING)) throw new UsageError(`--input is JSON nested deeper than ${MAX_NESTING} levels`, 'no request of the API nests so deep; nothing was sent');
  return body;
}

export async function run(ctx: Context, o: ApiOptions): Promise<number> {
  requireFormat('callctl api', ctx.globals, ['json', 'ndjson'], 'the JSON body as the API returned it');
  const { method, path, fields } = o;
  const query = { ...o.query };
  let body: unknown = o.input !== undefined ? await readInput(ctx, o.input) : undefined;
  if (method === 'GET' || method === 'DELETE') {
    for (const [k, v] of Object.entries(fields)) query[k] = String(v);
  } else if (Object.keys(fields).length > 0) {
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) throw new UsageError('-f fields need --input to be a JSON object');
    body = { ...((body as Record<string, unknown>) ?? {}), ...fields };
  }

  const client = await ctx.api();
  const out = ctx.deps.io.stdout;
  if (o.paginate) {
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
  const res = await client.request({ method, path, query, ...(body !== undefined ? { body } : {}) });
  if (res.body !== undefined) await writeOut(out, `${typeof res.body === 'string' ? (out.isTTY === true ? escapeControls(res.body, true) : res.body) : ctx.format === 'ndjson' ? JSON.stringify(res.body) : JSON.stringify(res.body, null, 2)}\n`);
  else ctx.log.info(`${res.status} (no body)`);
  return 0;
}
