/**
 * A closed stdout (`callctl … | head -1`): the reader has everything it wanted, so the command
 * ends quietly with exit 0, as git and gh do — no stack, and no further requests.
 */
import { CallctlError } from '../errors.js';

/** Thrown by a writer when stdout's reader has gone; main() turns it into exit 0. */
export class StdoutClosedError extends CallctlError {
  constructor() {
    super('stdout_closed', 'stdout was closed by its reader');
  }
}

/** True for the errors a write meets when the reading end of a pipe is gone. */
export function isClosedPipe(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END' || err instanceof StdoutClosedError;
}
