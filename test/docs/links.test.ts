// Every page the project names exists, and every section it cites is there (docs/development.md,
// "The documents, and the README's examples"): the docs/… paths and Markdown links of the README,
// docs/ and BENCHMARKS.md, the citations in the comments of src/, test/, bench/ and scripts/
// (`docs/cli.md, "Data and files"`, `README, "…"`), and each page's size (at most 400 lines; the
// README about 250).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT } from '../helpers/cli.js';

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const p = `${dir}/${e.name}`;
    return e.isDirectory() ? files(p, ext) : ext.test(e.name) ? [p] : [];
  });
}

const PAGES = ['README.md', 'BENCHMARKS.md', ...files('docs', /\.md$/)];
const SOURCES = [...files('src', /\.ts$/), ...files('test', /\.ts$/), ...files('bench', /\.(ts|mjs|js)$/), ...files('scripts', /\.(mjs|js)$/), '.ci/run'];

/** A file's text as prose: comment markers at line starts gone, each run of blanks one space. */
function prose(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .map((l) => l.replace(/^\s*(\/\/+|\/?\*+\/?|#+(?= ))?\s?/, ''))
    .join(' ')
    .replace(/\s+/g, ' ');
}

/** The headings of a page, without their `#`s and backticks, lower case. */
function headings(page: string): string[] {
  return [...readFileSync(join(ROOT, page), 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((m) => (m[1] as string).replace(/`/g, '').toLowerCase());
}

test('every docs/ path named in the README, docs, BENCHMARKS.md and the sources exists', () => {
  const missing: string[] = [];
  let named = 0;
  for (const file of [...PAGES, ...SOURCES]) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/(?<![\w./-])docs\/[\w/.-]*\w\.(md|png)\b/g)) {
      named += 1;
      if (!existsSync(join(ROOT, m[0]))) missing.push(`${file}: ${m[0]}`);
    }
    if (!file.endsWith('.md')) continue;
    // Markdown links, relative to the page.
    for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
      const target = m[1] as string;
      if (/^[a-z]+:/.test(target)) continue;
      named += 1;
      if (!existsSync(join(ROOT, dirname(file), target))) missing.push(`${file}: (${target})`);
    }
  }
  assert.deepEqual(missing, [], 'named but missing');
  assert.ok(named > 100, `${named} paths checked`);
});

test('every section a comment or a page cites is a heading of that page', () => {
  const wrong: string[] = [];
  let cited = 0;
  for (const file of [...PAGES, ...SOURCES]) {
    const text = prose(file);
    for (const m of text.matchAll(/\b(docs\/[\w/-]+\.md|README(?:\.md)?),? "([^"]{2,80})"/g)) {
      const page = m[1]!.startsWith('README') ? 'README.md' : m[1]!;
      const section = m[2]!.replace(/`/g, '').toLowerCase();
      cited += 1;
      if (!existsSync(join(ROOT, page))) continue; // the test above names it
      if (!headings(page).some((h) => h.startsWith(section))) wrong.push(`${relative(ROOT, join(ROOT, file))}: ${page}, "${m[2]}"`);
    }
  }
  assert.deepEqual(wrong, [], 'cited sections that are not headings of their page');
  assert.ok(cited > 50, `${cited} citations checked`);
});

test('every page is at most 400 lines, the README about 250', () => {
  for (const page of PAGES) {
    const lines = readFileSync(join(ROOT, page), 'utf8').split('\n').length - 1;
    assert.ok(lines <= (page === 'README.md' ? 300 : 400), `${page}: ${lines} lines`);
  }
});
