/**
 * Every error callctl raises on purpose is a CallctlError with a stable `code`; `exitCodeOf`
 * is the one place that turns an error into the exit code of the CLI contract (docs/cli.md, "Streams and exit codes").
 */

/** Exit codes of the CLI contract. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  rejected: 5,
  /** A bulk job (import, writeback, erasure) ended with rows rejected, duplicated or failed. */
  incomplete: 6,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Base class: `message` says what happened, `hint` what to do next. */
export class CallctlError extends Error {
  readonly code: string;
  readonly hint: string | undefined;
  constructor(code: string, message: string, hint?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.hint = hint;
  }
}

/** Bad or missing arguments, invalid values caught before sending, missing --confirm (exit 2). */
export class UsageError extends CallctlError {
  constructor(message: string, hint?: string, code = 'usage') {
    super(code, message, hint);
  }
}

/** No key, a key of the wrong kind, an unsafe base URL, 401, 403 (exit 3). */
export class AuthError extends CallctlError {
  constructor(message: string, hint?: string, code = 'auth') {
    super(code, message, hint);
  }
}

/** A local problem that is not the operator's arguments: config file, malformed input file (exit 1). */
export class RuntimeError extends CallctlError {
  constructor(code: string, message: string, hint?: string, options?: { cause?: unknown }) {
    super(code, message, hint, options);
  }
}

/** The operator pressed Ctrl-C (or sent SIGTERM); work in progress has been saved (exit 130). */
export class InterruptedError extends CallctlError {
  constructor(message = 'interrupted', hint?: string) {
    super('interrupted', message, hint);
  }
}

/** What a request ended with when it did not succeed: an HTTP status, or a transport failure. */
export interface ApiErrorDetails {
  method: string;
  path: string;
  /** HTTP status, absent for transport failures (network, timeout). */
  status?: number;
  /** The server's own message when its body carried one. */
  serverMessage?: string;
  /** The parsed error body, kept for --verbose and for JSON output. */
  body?: unknown;
  attempts?: number;
  /**
   * No other request can succeed either (a name that does not resolve, a refused certificate, a
   * page in place of the API): a bulk job stops rather than fail row after row.
   */
  final?: boolean;
}

/**
 * A request that failed: carries the status (or none for network errors) and the server's message.
 * The code is derived from the status so scripts can rely on it.
 */
export class ApiError extends CallctlError {
  readonly status: number | undefined;
  readonly method: string;
  readonly path: string;
  readonly serverMessage: string | undefined;
  readonly body: unknown;
  readonly attempts: number;
  readonly final: boolean;
  constructor(code: string, message: string, details: ApiErrorDetails, hint?: string, options?: { cause?: unknown }) {
    super(code, message, hint, options);
    this.status = details.status;
    this.method = details.method;
    this.path = details.path;
    this.serverMessage = details.serverMessage;
    this.body = details.body;
    this.attempts = details.attempts ?? 1;
    this.final = details.final === true;
  }
}

/** The stable code of an HTTP status that ended a request. */
export function codeForStatus(status: number): 'unauthorized' | 'forbidden' | 'not_found' | 'rate_limited' | 'server_error' | 'rejected' | 'unexpected' {
  if (status < 400) return 'unexpected';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  return 'rejected';
}

/** The exit code for any thrown value: the only mapping in callctl. */
export function exitCodeOf(err: unknown): ExitCode {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof AuthError) return EXIT.auth;
  if (err instanceof InterruptedError) return EXIT.interrupted;
  if (err instanceof ApiError && err.status !== undefined) {
    // One reading of a status (codeForStatus): 400, 409, 422 and any other 4xx but 429 are the
    // server refusing what was sent, not a failure of the transport.
    const code = codeForStatus(err.status);
    if (code === 'unauthorized' || code === 'forbidden') return EXIT.auth;
    if (code === 'not_found') return EXIT.notFound;
    if (code === 'rejected') return EXIT.rejected;
  }
  return EXIT.failure;
}
