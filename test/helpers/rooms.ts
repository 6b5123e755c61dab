/**
 * The import directions docs/architecture.md draws, read from the page itself, and every import of
 * a source tree checked against them: its rooms table (floor, room), its exceptions (`from` →
 * `to`), and the door of pace/. Imports are read by TypeScript's parser — static, `export … from`,
 * `import()` and `import('…').Type` alike, type-only ones included.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface Rooms {
  /** Room (`phone/`, `errors.ts`, `api/fields.ts`) → floor. */
  floors: Map<string, number>;
  /** `from` → `to`, each a file or a room, as the page lists them. */
  exceptions: Array<{ from: string; to: string }>;
}

/** The rooms table and the exceptions of docs/architecture.md. */
export function roomsOf(doc: string): Rooms {
  const floors = new Map<string, number>();
  for (const m of doc.matchAll(/^\|\s*(\d+)\s*\|\s*`([^`]+)`\s*\|/gm)) floors.set(m[2] as string, Number(m[1]));
  const section = doc.split(/^## /m).find((s) => s.startsWith('Exceptions')) ?? '';
  const exceptions = [...section.matchAll(/^- `([^`]+)` → `([^`]+)`/gm)].map((m) => ({ from: m[1] as string, to: m[2] as string }));
  return { floors, exceptions };
}

/** The room of a file (its path under src/, with `/`): the most precise row of the table that names it. */
export function roomOf(rooms: Rooms, file: string): string | undefined {
  if (rooms.floors.has(file)) return file;
  const folder = `${file.split('/')[0]}/`;
  return file.includes('/') && rooms.floors.has(folder) ? folder : undefined;
}

function sources(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
    })
    .sort();
}

/** The relative modules a file imports (`./x.js`, `../y/z.js`), however it imports them. */
export function importsOf(text: string, fileName = 'file.ts'): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) found.push(node.arguments[0].text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) found.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true));
  return found.filter((s) => s.startsWith('.'));
}

/** Every import of `srcDir` that breaks the page's rules, one line each; and the exceptions no import uses. */
export function violations(srcDir: string, rooms: Rooms): { broken: string[]; unused: string[] } {
  const broken: string[] = [];
  const used = new Set<number>();
  const rel = (abs: string) => relative(srcDir, abs).split(sep).join('/');
  for (const abs of sources(srcDir)) {
    const file = rel(abs);
    const from = roomOf(rooms, file);
    if (from === undefined) {
      broken.push(`${file}: in no room of docs/architecture.md`);
      continue;
    }
    for (const spec of importsOf(readFileSync(abs, 'utf8'), abs)) {
      const target = rel(resolve(dirname(abs), spec.replace(/\.js$/, '.ts')));
      const to = roomOf(rooms, target);
      if (to === undefined) {
        if (!target.startsWith('..')) broken.push(`${file} → ${target}: in no room of docs/architecture.md`);
        continue;
      }
      // The door of pace/: from outside, only its index.
      if (to === 'pace/' && from !== 'pace/' && target !== 'pace/index.ts') broken.push(`${file} → ${target}: past the door of pace/ (import src/pace/index.ts)`);
      if (to === from) continue;
      const up = (rooms.floors.get(to) as number) >= (rooms.floors.get(from) as number);
      if (!up) continue;
      const exception = rooms.exceptions.findIndex((e) => (e.from === file || e.from === from) && (e.to === target || e.to === to));
      if (exception >= 0) {
        used.add(exception);
        continue;
      }
      const same = rooms.floors.get(to) === rooms.floors.get(from);
      broken.push(`${file} → ${target}: ${from} (floor ${rooms.floors.get(from)}) ${same ? 'imports a room on its own floor' : 'climbs to'} ${to} (floor ${rooms.floors.get(to)})`);
    }
  }
  const unused = rooms.exceptions.filter((_, i) => !used.has(i)).map((e) => `${e.from} → ${e.to}`);
  return { broken, unused };
}
