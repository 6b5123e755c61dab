// Every list is read whole, on any paging (docs/people.md, "Reading a list whole"): for each
// paging form a service may use (the limit echoed, hasMore only, total only, nothing but data) and
// each cap it may put on `limit` without saying so (10, 20, 50, 100), every command that reads a
// whole list finds what lies past the first page — the 111th of 120 contacts, calls past the first
// 100 (with a cap of 100; past the cap's first page with the others) — as an operator sees it: stdout, stderr, exit code, and what the service holds afterwards.
// One server of the test's own serves every mode (helpers/paged-service.ts); the commands run
// in-process (helpers/in-process.ts), so the table of 16 modes stays cheap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { ApiClient } from '../../src/http/client.js';
import { pages } from '../../src/http/paginate.js';
import { Logger } from '../../src/output/log.js';
import { tempDir } from '../helpers/cli.js';
import { runMain } from '../helpers/in-process.js';
import { CAPS, FORMS, type Form, type PagedService, pagedService, type RunData } from '../helpers/paged-service.js';

const KEY = `sk_live_${'w'.repeat(24)}`;
const pad = (i: number) => String(i).padStart(3, '0');

/**
 * A list longer than a cap's page and than the 100 asked: `cap` + 20 contacts (120 for a cap of
 * 100). The person looked for is `her`, past the first page: her national-format twin is `her + 4`;
 * as many calls worth 10 USD each, calls `her`, `her + 1` and `her + 8` hers, `her + 4` her twin's.
 */
const sizeOf = (cap: number) => cap + 20;
const herOf = (cap: number) => sizeOf(cap) - 9;
const phoneOf = (i: number) => `+44 7400 100${pad(i)}`;
function dataset(cap: number): RunData {
  const n = sizeOf(cap);
  const her = herOf(cap);
  const contacts = Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    return { id: `c${i}`, firstName: `P${i}`, phone: i === her + 4 ? `07400 100${pad(her)}` : phoneOf(i) };
  });
  const calls = Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    return { id: `k${i}`, contactId: i === her + 1 || i === her + 8 ? `c${her}` : `c${i}`, outcome: 'booked', value: 10, currency: 'USD' };
  });
  return { contacts, calls };
}

test('every command that reads a whole list reads all of it, on every paging form and cap', async (t) => {
  const services = new Map(await Promise.all(CAPS.map(async (cap) => [cap, await pagedService(t, () => dataset(cap))] as const)));
  const dir = tempDir(t);
  const failures: string[] = [];
  // The modes side by side (each waits on its pace's slow start, not on the CPU); a mode's commands in turn.
  await Promise.all(FORMS.flatMap((form) => CAPS.map(async (cap) => {
      const mode = `${form}, cap ${cap}`;
      const service = services.get(cap) as PagedService;
      const n = sizeOf(cap);
      const her = herOf(cap);
      const HER = phoneOf(her);
      const hers = [`c${her}`, `c${her + 4}`].sort().join();
      const requests = join(dir, `requests-${form}-${cap}.txt`);
      writeFileSync(requests, `${HER}\n`);
      const leads = join(dir, `leads-${form}-${cap}.csv`);
      writeFileSync(leads, `phone\n${HER}\n+447400100999\n`);
      const run = async (name: string, argv: string[]) => {
        const env = { CALLCTL_BASE_URL: service.baseUrl(form, cap, name), CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) };
        return { r: await runMain(argv, { env, cwd: dir }), data: service.data(form, cap, name) };
      };
      const check = (what: string, ok: boolean, detail: string) => {
        if (!ok) failures.push(`${mode}: ${what}: ${detail}`);
      };

      const find = (await run('find', ['contacts', 'find', '--phone', HER, '--json'])).r;
      const found = find.code === 0 ? (JSON.parse(find.stdout) as Array<{ id: string }>).map((c) => c.id).sort() : [];
      check('contacts find', find.code === 0 && found.join() === hers, `exit ${find.code}, ${found.join()} ${find.stderr}`);

      const dry = (await run('dry', ['contacts', 'rm', '--phone', HER, '--dry-run', '--json'])).r;
      const would = dry.code === 0 ? (JSON.parse(dry.stdout).wouldErase as Array<{ id: string }>).map((w) => w.id).sort() : [];
      check('contacts rm --phone --dry-run', would.join() === hers, `exit ${dry.code}, ${would.join()} ${dry.stderr}`);

      const rm = await run('rm', ['contacts', 'rm', '--from', requests, '--confirm', '--json', '--receipts', join(dir, `${form}-${cap}.erasures.jsonl`)]);
      const left = rm.data.contacts.map((c) => c.id);
      check('contacts rm --from', rm.r.code === 0 && JSON.parse(rm.r.stdout).erased === 2 && !left.includes(`c${her}`) && !left.includes(`c${her + 4}`) && left.length === n - 2, `exit ${rm.r.code}, ${left.length} left ${rm.r.stderr}`);

      const dupes = (await run('dupes', ['contacts', 'dupes', '--country', 'GB', '--json'])).r;
      const groups = dupes.code === 0 ? (JSON.parse(dupes.stdout).groups as Array<{ ids: string[] }>).map((g) => g.ids.sort().join()) : [];
      check('contacts dupes', groups.join(';') === hers, `exit ${dupes.code}, ${groups.join(';')} ${dupes.stderr}`);

      const preview = (await run('preview', ['import', leads, '--dry-run', '--country', 'GB', '--json'])).r;
      const p = preview.code === 0 ? JSON.parse(preview.stdout) : {};
      check('import --dry-run (preview)', p.matches === 1 && p.new === 1, `exit ${preview.code}, ${JSON.stringify(p)} ${preview.stderr}`);

      const calls = (await run('calls', ['calls', 'ls', '--contact', HER, '--json'])).r;
      const theirs = calls.code === 0 ? (JSON.parse(calls.stdout) as Array<{ id: string }>).map((c) => c.id).sort().join() : '';
      check('calls ls --contact', theirs === [her, her + 1, her + 4, her + 8].map((i) => `k${i}`).sort().join(), `exit ${calls.code}, ${theirs} ${calls.stderr}`);

      const summary = (await run('summary', ['calls', 'summary', '--json'])).r;
      const rows = summary.code === 0 ? (JSON.parse(summary.stdout) as Array<{ calls: number; totals: Record<string, number> }>) : [];
      check('calls summary', rows.length === 1 && rows[0]?.calls === n && rows[0]?.totals.USD === 10 * n, `exit ${summary.code}, ${JSON.stringify(rows)} ${summary.stderr}`);

      for (const [what, argv] of [['contacts ls --all', ['contacts', 'ls', '--all', '--json']], ['calls ls --all', ['calls', 'ls', '--all', '--json']]] as const) {
        const all = (await run(what.split(' ')[0] as string, [...argv])).r;
        const ids = all.code === 0 ? new Set((JSON.parse(all.stdout) as Array<{ id: string }>).map((c) => c.id)) : new Set();
        check(what, ids.size === n, `exit ${all.code}, ${ids.size} distinct ${all.stderr}`);
      }
  })));
  assert.deepEqual(failures.sort(), []);
});

/** The reader itself against a service whose list is `list`, page by page as `answer` makes them. */
async function readAll(t: { after(fn: () => unknown): void }, form: Form, cap: number, items: number, limit?: number): Promise<{ ids: string[]; requests: string[] }> {
  const service = await pagedService(t, () => ({ contacts: Array.from({ length: items }, (_, i) => ({ id: `c${i + 1}` })), calls: [] }));
  const client = new ApiClient({
    baseUrl: new URL(service.baseUrl(form, cap, 'r')), apiKey: KEY, concurrency: 1, rate: undefined, timeoutMs: 5_000,
    log: new Logger(new PassThrough(), 'quiet', false), now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  });
  t.after(() => client.close());
  const ids: string[] = [];
  for await (const page of pages(client, { path: '/contacts', limit: limit ?? 100 })) ids.push(...page.map((c) => (c as { id: string }).id));
  return { ids, requests: service.hits(form, cap, 'r') };
}

test('a service that counts its pages by the limit asked and cuts them short is read at the size it gives: nothing between is skipped', async (t) => {
  for (const cap of CAPS) {
    const r = await readAll(t, 'askedOffset', cap, 120);
    assert.equal(new Set(r.ids).size, 120, `cap ${cap}: ${r.requests.join(' ')}`);
    assert.equal(r.ids.length, 120, `cap ${cap}: each once`);
  }
});

test('a larger page only where the answer shows it was taken; a short list costs one page more only where nothing says it ended', async (t) => {
  // Taken (a full page of 100): the next page is asked at 100.
  assert.deepEqual((await readAll(t, 'bare', 100, 120)).requests, ['GET /contacts?page=1&limit=100', 'GET /contacts?page=2&limit=100']);
  // Capped at 50, silently: the next pages at 50, from where the first ended, until one is short of a size known to be applied.
  assert.deepEqual((await readAll(t, 'bare', 50, 120)).requests, ['GET /contacts?page=1&limit=100', 'GET /contacts?page=2&limit=50', 'GET /contacts?page=3&limit=50']);
  // 37 contacts and nothing but data: 37 may be a cap, so a page at 37 comes back empty to end it.
  assert.deepEqual((await readAll(t, 'bare', 100, 37)).requests, ['GET /contacts?page=1&limit=100', 'GET /contacts?page=2&limit=37']);
  // The same list with its limit echoed, or a total, ends at once.
  assert.equal((await readAll(t, 'echo', 100, 37)).requests.length, 1);
  assert.equal((await readAll(t, 'total', 100, 37)).requests.length, 1);
});
