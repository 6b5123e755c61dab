// A rate limiter from npm in front of the bench's backend (bench/limiters.mjs): express-rate-limit
// or rate-limiter-flexible, configured as the table says, passing what it admits on to the
// backend over keep-alive and answering what it refuses itself. Loopback only.
//
// node bench/limiter-front.mjs <express|flexible> '<spec json>' <backend origin>
//   express:  { quota, windowMs, headers: 'draft8' | 'none' }
//   flexible: { points, durationMs }  (X-RateLimit-* and a fractional Retry-After, as its README)
// Prints "PORT <n>" once listening.
import http from 'node:http';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { RateLimiterMemory } from 'rate-limiter-flexible';

const [kind, specJson, backend] = process.argv.slice(2);
const spec = JSON.parse(specJson);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** Passes a request on to the backend and its answer back. */
function forward(req, res, headers = {}) {
  const up = http.request(`${backend}${req.url}`, { method: req.method, headers: req.headers, agent }, (r) => {
    res.writeHead(r.statusCode ?? 502, { ...r.headers, ...headers });
    r.pipe(res);
  });
  up.on('error', () => {
    res.writeHead(502).end();
  });
  req.pipe(up);
}

let server;
if (kind === 'express') {
  const app = express();
  app.set('trust proxy', false);
  app.use(
    rateLimit({
      windowMs: spec.windowMs,
      limit: spec.quota,
      standardHeaders: spec.headers === 'draft8' ? 'draft-8' : false,
      legacyHeaders: false,
    }),
  );
  app.use((req, res) => forward(req, res));
  server = http.createServer(app);
} else if (kind === 'flexible') {
  const limiter = new RateLimiterMemory({ points: spec.points, duration: spec.durationMs / 1000 });
  const headersOf = (r) => ({
    'X-RateLimit-Limit': String(spec.points),
    'X-RateLimit-Remaining': String(r.remainingPoints),
    'X-RateLimit-Reset': String(Math.ceil((Date.now() + r.msBeforeNext) / 1000)),
  });
  server = http.createServer((req, res) => {
    limiter.consume('client').then(
      (r) => forward(req, res, headersOf(r)),
      (r) => {
        req.resume();
        res.writeHead(429, { ...headersOf(r), 'Retry-After': String(r.msBeforeNext / 1000), 'content-type': 'application/json' });
        res.end('{"error":"too many requests"}');
      },
    );
  });
} else throw new Error(`unknown limiter ${kind}`);
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => console.log(`PORT ${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
