/**
 * Data is shown, not obeyed (docs/cli.md, "What counts, and what cannot hurt"): a field that holds
 * control characters — an escape sequence that would retitle, clear or recolour the terminal, a
 * carriage return that would overwrite the line, a C1 code some terminals act on — is shown with
 * those characters escaped wherever data meets a terminal: the table writer and the logger's
 * lines. JSON, NDJSON and CSV already carry them as data and are left alone.
 */

/** C0 controls, DEL and C1 controls. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
/** The same, less the newline: for a block of lines (a table, a stack trace). */
const CONTROLS_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

function shown(ch: string): string {
  return NAMED[ch] ?? `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

/**
 * `text` with every control character written out: `\e` for ESC, `\n` `\r` `\t`, `\xHH` for the
 * rest (C1 included: `\x9b`). With `keepNewlines`, a newline stays one (a block of several lines).
 */
export function escapeControls(text: string, keepNewlines = false): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(keepNewlines ? CONTROLS_BUT_NEWLINE : CONTROLS, shown);
}
