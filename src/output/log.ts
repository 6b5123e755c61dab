/**
 * Everything for a person goes to stderr through the Logger: notes, warnings, --verbose request
 * lines and the final error line. It masks every registered secret in every line it writes, so a
 * key that slips into a message (a server echoing it, an error text) is still never printed, and
 * escapes the control characters of every line (escape.ts): a field a message quotes cannot move
 * the cursor, retitle or clear the operator's terminal.
 */
import { styleText } from 'node:util';
import type { OutStream } from '../deps.js';
import { escapeControls } from './escape.js';
import { maskKey } from './mask.js';

export type Verbosity = 'quiet' | 'normal' | 'verbose';

export class Logger {
  private readonly secrets = new Set<string>();

  constructor(
    private readonly stderr: OutStream,
    readonly verbosity: Verbosity,
    readonly color: boolean,
  ) {}

  /** Registers a value that must never appear in output; it is shown masked instead. */
  addSecret(secret: string | undefined): void {
    if (secret && secret.length >= 8) this.secrets.add(secret);
  }

  /** Replaces every registered secret in `text` with its mask. */
  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join(maskKey(s));
    return out;
  }

  get isVerbose(): boolean {
    return this.verbosity === 'verbose';
  }

  /** A note for a person (summaries, receipts); hidden by --quiet. */
  info(line: string): void {
    if (this.verbosity !== 'quiet') this.write(this.shown(line));
  }

  /** A warning; hidden by --quiet. */
  warn(line: string): void {
    if (this.verbosity !== 'quiet') this.write(this.paint('yellow', this.shown(`callctl: warning: ${line}`)));
  }

  /** Detail shown only with --verbose. */
  debug(line: string): void {
    if (this.verbosity === 'verbose') this.write(this.paint('gray', this.shown(line)));
  }

  /** A line that --quiet still shows: the one line of a job whose rows were rejected or failed. */
  notice(line: string): void {
    this.write(this.shown(line));
  }

  /** The one error line of a failed command; always shown. */
  error(line: string): void {
    this.write(this.paint('red', this.shown(line)));
  }

  /** Raw text for a person (a table, a multi-line block); hidden by --quiet. */
  block(text: string): void {
    if (this.verbosity !== 'quiet') this.stderr.write(escapeControls(this.redact(text.endsWith('\n') ? text : `${text}\n`), true));
  }

  /** The line as shown: secrets masked, controls escaped, then painted (the paint's own escapes stay). */
  private shown(line: string): string {
    return escapeControls(this.redact(line));
  }

  private paint(color: 'red' | 'yellow' | 'gray', text: string): string {
    return this.color ? styleText(color, text) : text;
  }

  private write(line: string): void {
    this.stderr.write(`${line}\n`);
  }
}
