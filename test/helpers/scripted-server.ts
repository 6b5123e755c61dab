/**
 * A tiny HTTP server whose answers a test scripts request by request — for behaviours the sandbox
 * deliberately does not have (an unknown envelope, a 429 with an HTTP-date Retry-After, a server
 * that never sends rate-limit headers). It records every request it received.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Hit {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** performance.now() when the request arrived. */
  at: number;
}

export type Script = (hit: Hit, res: ServerResponse, index: number) => void | Promise<void>;

/** Starts the server on 127.0.0.1, port 0; closed when the test ends. */
export async function scriptedServer(t: { after(fn: () => unknown): void }, script: Script): Promise<{ baseUrl: string; hits: Hit[]; server: Server }> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hit: Hit = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() };
      hits.push(hit);
      void script(hit, res, hits.length - 1);
    });
  });
  const port = await listenOnLoopback(t, server);
  return { baseUrl: `http://127.0.0.1:${port}/api/v1`, hits, server };
}

/** Starts a test's own server on 127.0.0.1, a free port, closed when the test ends; its port. */
export async function listenOnLoopback(t: { after(fn: () => unknown): void }, server: Server): Promise<number> {
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  t.after(() => {
    server.closeAllConnections();
    return new Promise((done) => server.close(() => done(undefined)));
  });
  return (server.address() as AddressInfo).port;
}

/** Sends a JSON answer. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
