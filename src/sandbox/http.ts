/** Small HTTP helpers of the sandbox: JSON answers, error bodies, bounded body reading. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The sandbox's error body: `{"error": {"code", "message"}}`. */
export function failure(status: number, code: string, message: string, headers?: Record<string, string>): Answer {
  return { status, body: { error: { code, message } }, ...(headers ? { headers } : {}) };
}

export function send(res: ServerResponse, answer: Answer, extra: Record<string, string> = {}): void {
  if (res.destroyed || res.headersSent) return;
  const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
  const headers: Record<string, string | number> = { ...extra, ...answer.headers };
  if (text !== '') {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(text);
  } else if (answer.status !== 204) {
    headers['content-length'] = 0;
  }
  res.writeHead(answer.status, headers);
  res.end(text);
}

export const MAX_BODY_BYTES = 64 * 1024;

const EMPTY = Buffer.alloc(0);

/**
 * Reads the body; resolves undefined as soon as it is known to be over the limit — by its
 * Content-Length or by what has arrived — and stops reading (the caller answers 413 and closes).
 */
export function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const length = req.headers['content-length'];
  if (length === undefined && req.headers['transfer-encoding'] === undefined) return Promise.resolve(EMPTY);
  if (Number(length) > MAX_BODY_BYTES) return Promise.resolve(undefined);
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(c);
      req.off('data', onData);
      req.pause();
      done(undefined);
    };
    req.on('data', onData);
    req.on('end', () => done(Buffer.concat(chunks, size)));
    req.on('error', fail);
  });
}
