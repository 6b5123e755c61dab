/**
 * The CSV formula guard (OWASP, "CSV Injection"): a spreadsheet runs a cell that starts with `=`,
 * `+`, `-`, `@`, a tab or a carriage return as a formula — `=HYPERLINK(…)` in a contact's name
 * becomes a link that sends the sheet away. Every CSV callctl writes puts a `'` before such a cell
 * (`--csv-raw` turns it off); callctl's own reader takes exactly that `'` off again, so a CSV it
 * wrote re-imports as the values it held (docs/cli.md, "Data and files").
 *
 * A value that itself starts with `'` and then a formula character gets one `'` more, so that
 * taking one off always gives the value back.
 */

/** `=` `+` `-` `@` tab CR, after any number of `'`. */
const FORMULA = /^'*[=+\-@\t\r]/;
/** What the guard writes: one `'` or more, then a formula character. */
const GUARDED = /^'+[=+\-@\t\r]/;

/** The cell as written to a CSV: `'` before a cell a spreadsheet would run. */
export function guardCell(text: string): string {
  return FORMULA.test(text) ? `'${text}` : text;
}

/** The cell as read from a CSV: the guard's `'` taken off, anything else untouched. */
export function unguardCell(text: string): string {
  return text.charCodeAt(0) === 39 && GUARDED.test(text) ? text.slice(1) : text;
}
