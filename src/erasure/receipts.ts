/**
 * Erasure receipts: one JSON line per contact erased and one per request that found nothing,
 * appended (never rewritten) and fsync'd as each is written — the proof an erasure request was
 * honoured. A receipt holds the request's line number, the contact id and the time: never a
 * phone, name or e-mail, for a receipt must not keep the personal data it proves gone. The request
 * file, which the operator keeps apart, is the link from a line to a person.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { RuntimeError } from '../errors.js';
import type { Redact } from '../output/files.js';

export type Receipt = { request: number; id: string; erased: true; at: string } | { request: number; found: 0 };

export class ReceiptsFile {
  private fd: number | undefined;
  written = 0;

  /** `redact`: the logger's masking, which every file callctl writes passes (output/files.ts). */
  constructor(
    readonly path: string,
    private readonly redact: Redact = (t) => t,
  ) {}

  add(receipt: Receipt): void {
    if (this.fd === undefined) {
      try {
        this.fd = openSync(this.path, 'a', 0o600);
      } catch (err) {
        throw new RuntimeError('receipts_unwritable', `cannot write the receipts file ${this.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'choose another place with --receipts');
      }
    }
    writeSync(this.fd, `${this.redact(JSON.stringify(receipt))}\n`);
    fsyncSync(this.fd);
    this.written += 1;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
