/**
 * Data is shown, not obeyed (docs/cli.md, "Data and files"): a field that holds
 * control characters — an escape sequence that would retitle, clear or recolour the terminal, a
 * carriage return that would overwrite the line, a C1 code some terminals act on — is shown with
 * those characters escaped wherever data meets a terminal: the table writer and the logger's
 * lines. So are the invisible format characters (Unicode's category Cf): a bidi override (U+202E)
 * or isolate (U+2066–2069) in a name would print the rest of the row reversed — its phone
 * included — and a zero-width space hides a difference between two values that look alike. JSON,
 * NDJSON and CSV already carry them as data and are left alone.
 */

/** C0 controls, DEL, C1 controls, and the format characters (Cf), with the line and paragraph separators. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/u;
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/gu;
/** The same, less the newline: for a block of lines (a table, a stack trace). */
const CONTROLS_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/gu;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

function shown(ch: string): string {
  const code = ch.codePointAt(0)!;
  if (code > 0xffff) return `\\u{${code.toString(16)}}`;
  if (code > 0xff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return NAMED[ch] ?? `\\x${code.toString(16).padStart(2, '0')}`;
}

/**
 * `text` with every control and format character written out: `\e` for ESC, `\n` `\r` `\t`,
 * `\xHH` for the rest of C0 and C1 (`\x9b`), `\uHHHH` for a format character (`\u202e`, `\u200b`).
 * With `keepNewlines`, a newline stays one (a block of several lines).
 */
export function escapeControls(text: string, keepNewlines = false): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(keepNewlines ? CONTROLS_BUT_NEWLINE : CONTROLS, shown);
}
