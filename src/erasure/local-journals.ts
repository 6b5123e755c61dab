/**
 * An import's journal as an own copy of a person: before it changes a contact it has read, an
 * import notes the fields' earlier values (`{"r", "i": {"match": <id>, "b": {field: value}}}`),
 * so that `import undo` can give them back (src/import/undo-notes.ts). Once that contact is erased
 * those values are a copy of the person and nothing can be given back to them: `--purge-local`
 * blanks them (`"b": {}`, `"erased": true`), every other line left byte for byte. A running job's
 * journal is never rewritten (it is appended to).
 */
import { closeSync, fsyncSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The lines of a journal holding earlier values of one of `ids`, by index, and the ids they hold. */
function linesHolding(lines: string[], ids: ReadonlySet<string>): { at: number[]; ids: Set<string> } {
  const out: number[] = [];
  const found = new Set<string>();
  lines.forEach((line, i) => {
    if (!line.includes('"match"')) return;
    let e: { i?: { match?: unknown; b?: unknown } };
    try {
      e = JSON.parse(line);
    } catch {
      return;
    }
    const b = e.i?.b;
    if (typeof e.i?.match === 'string' && ids.has(e.i.match) && b !== null && typeof b === 'object' && Object.keys(b).length > 0) {
      out.push(i);
      found.add(e.i.match);
    }
  });
  return { at: out, ids: found };
}

/**
 * The notes of the journal at `path` that hold earlier values of the contacts `ids`, and which ids;
 * with `purge`, blanks them (temp file, fsync, rename; refused if the journal changed meanwhile).
 */
export function journalHolding(path: string, ids: ReadonlySet<string>, purge: boolean): { notes: number; ids: Set<string> } {
  const target = realpathSync(path);
  const before = statSync(target);
  const lines = readFileSync(target, 'utf8').split('\n');
  const held = linesHolding(lines, ids);
  if (held.at.length === 0 || !purge) return { notes: held.at.length, ids: held.ids };
  for (const i of held.at) {
    const e = JSON.parse(lines[i] as string) as { i: Record<string, unknown> };
    e.i = { ...e.i, b: {}, erased: true };
    lines[i] = JSON.stringify(e);
  }
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
  const fd = openSync(temp, 'w', before.mode & 0o777);
  try {
    writeSync(fd, lines.join('\n'));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const now = statSync(target);
  if (now.size !== before.size || now.mtimeMs !== before.mtimeMs) {
    rmSync(temp, { force: true });
    throw new Error('it changed while being read (a job writing to it?)');
  }
  renameSync(temp, target);
  return { notes: held.at.length, ids: held.ids };
}
