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

/** Reads the body, or undefined when it is over the limit (the caller answers 413). */
export function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((done, fail) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
      req.resume();
      return done(undefined);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) over = true;
      else chunks.push(c);
    });
    req.on('end', () => done(over ? undefined : Buffer.concat(chunks)));
    req.on('error', fail);
  });
}
