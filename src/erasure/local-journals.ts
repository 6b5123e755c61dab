/**
 * An import's journal as an own copy of a person: before it sends a row, an import notes its phone
 * with digests of what else it sends (`{"r", "i": {"t", "l", "p": <E.164>, "f": {field: digest}}}`) and, for a contact it has read, the fields' earlier
 * values (`"match": <id>, "b": {field: value}`),
 * so that `import undo` can give them back (src/import/undo-notes.ts); once answered, digests of
 * what it wrote (`{"r", "d": {"id", "w"}}` for a contact created, `"wf": {field: digest}` for one
 * changed) — unsalted hashes of a phone, an e-mail, a name, which a guess can be confirmed against.
 * Once that contact is erased, those values and digests are a copy of the person and nothing can be
 * given back or compared: `--purge-local` blanks them (`"b": {}`; `p`, `f`, `w`/`wf` taken out;
 * `"erased": true`), every other line left byte for byte — the undo then finds the contact gone. A running
 * job's journal is never rewritten (it is appended to).
 */
import { closeSync, fsyncSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

type Note = { i?: { match?: unknown; b?: unknown; p?: unknown; f?: unknown }; d?: { id?: unknown; w?: unknown; wf?: unknown } };

/**
 * The contact a line holds a copy of: earlier values (`i.b`) or digests (`d.w`, `d.wf`); or, for
 * the phone a row was sent with (`i.p`, kept to find what a row whose answer was lost stored),
 * the phone itself (`+…`).
 */
function heldBy(e: Note): string[] {
  const held: string[] = [];
  if (typeof e.i?.p === 'string') held.push(e.i.p);
  const b = e.i?.b;
  if (typeof e.i?.match === 'string' && b !== null && typeof b === 'object' && Object.keys(b).length > 0) held.push(e.i.match);
  if (typeof e.d?.id === 'string' && (e.d.w !== undefined || e.d.wf !== undefined)) held.push(e.d.id);
  return held;
}

/** That line without the copy. */
function blanked(e: Note): Note {
  if (e.d !== undefined && heldBy({ d: e.d }).length > 0) {
    const { w: _w, wf: _wf, ...d } = e.d;
    return { ...e, d: { ...d, erased: true } as Note['d'] };
  }
  const { p: _p, f: _f, ...i } = e.i ?? {};
  return { ...e, i: { ...i, ...(e.i?.b !== undefined ? { b: {} } : {}), erased: true } as Note['i'] };
}

/** The lines of a journal holding a copy of one of `ids` (contact ids, or E.164 phones), by index, and the ids they hold. */
function linesHolding(lines: string[], ids: ReadonlySet<string>): { at: number[]; ids: Set<string> } {
  const out: number[] = [];
  const found = new Set<string>();
  lines.forEach((line, i) => {
    if (!line.includes('"match"') && !line.includes('"d"') && !line.includes('"p"')) return;
    let e: Note;
    try {
      e = JSON.parse(line);
    } catch {
      return;
    }
    const held = e !== null && typeof e === 'object' ? heldBy(e).filter((id) => ids.has(id)) : [];
    if (held.length > 0) {
      out.push(i);
      for (const id of held) found.add(id);
    }
  });
  return { at: out, ids: found };
}

/**
 * The notes of the journal at `path` that hold a copy of the contacts `ids`, and which ids;
 * with `purge`, blanks them (temp file, fsync, rename; refused if the journal changed meanwhile).
 */
export function journalHolding(path: string, ids: ReadonlySet<string>, purge: boolean): { notes: number; ids: Set<string> } {
  const target = realpathSync(path);
  const before = statSync(target);
  const lines = readFileSync(target, 'utf8').split('\n');
  const held = linesHolding(lines, ids);
  if (held.at.length === 0 || !purge) return { notes: held.at.length, ids: held.ids };
  for (const i of held.at) lines[i] = JSON.stringify(blanked(JSON.parse(lines[i] as string) as Note));
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
