/**
 * Whether an answer is the API's (docs/network.md, "What counts as the API's answer"). The API answers JSON (docs/api.md);
 * a captive portal, an SSO page or a proxy in front of it answers an HTML page — often with 200 —
 * and a 200 is not a success unless its body is what the operation returns: a contact with an id,
 * a call, a list. The shapes themselves are the API's, in src/api/shapes.ts (and the list's in
 * paginate.ts); here is only how an answer is read against one.
 */

/** What a 2xx answer of one operation must be to count as the API's. */
export interface AnswerShape {
  /** For messages: "a contact with an id". */
  what: string;
  /** What a 404 of this operation is about: a record (check the id) or a collection (check the path). */
  names: 'record' | 'collection';
  accepts(body: unknown): boolean;
}

/** An answer the client saw (for its observers, `ApiClient.observe`): its status (undefined for a transport failure) and when. */
export interface AnswerSeen {
  at: number;
  status: number | undefined;
  /** A 429's Retry-After, in ms, when it gave one. */
  retryAfterMs?: number | undefined;
}

/** The limiter paused every request for `pauseMs` from `at` (after a 429: its Retry-After, or a probe's interval without one). */
export interface PauseSeen {
  at: number;
  pauseMs: number;
}

/** A body as read: parsed JSON, or the text when it is not JSON; `json` says which. */
export interface ReadBody {
  body: unknown;
  json: boolean;
}

/**
 * The deepest nesting of arrays and objects an answer may have (docs/network.md, "Bounds"). The
 * API's answers are a few levels deep; every reader after the parse (comparing pages, printing,
 * JSON.stringify itself) recurses, and an answer nested 200,000 deep ended in "Maximum call stack
 * size exceeded".
 */
export const MAX_NESTING = 100;

/** An answer refused before it is parsed: larger than --max-answer, or nested too deep. */
export class AnswerRefused extends Error {
  constructor(readonly why: 'too_large' | 'too_deep', message: string) {
    super(message);
  }
}

/** Whether JSON `text` nests arrays and objects deeper than `max` (brackets in strings are not counted); no recursion. */
export function nestedDeeperThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * The text of an answer's body, read up to `maxBytes`: a declared length past it is refused before
 * a byte is read, and a body that grows past it is cut off there — memory holds at most `maxBytes`
 * of it, whatever the server sends. undici's own `maxResponseSize` is an option of the dispatcher
 * (the proxy agent builds dispatchers of its own) and reads no Content-Length: counted here, once,
 * for every dispatcher.
 */
export async function readCapped(body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown }, maxBytes: number, declared: string | string[] | undefined): Promise<string> {
  const length = typeof declared === 'string' && /^\d+$/.test(declared) ? Number(declared) : undefined;
  if (length !== undefined && length > maxBytes) {
    const err = new AnswerRefused('too_large', `${megabytes(length)} (its Content-Length), more than --max-answer (${megabytes(maxBytes)})`);
    body.destroy(err);
    throw err;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      const err = new AnswerRefused('too_large', `larger than --max-answer (${megabytes(maxBytes)}); not read further`);
      body.destroy(err);
      throw err;
    }
    chunks.push(chunk);
  }
  // TextDecoder, as undici's text() does: a byte-order mark is dropped, invalid bytes become U+FFFD.
  return new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
}

/** "64 MB", "1.5 GB". */
function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 1024 ? `${(mb / 1024).toFixed(1)} GB` : `${Math.round(mb * 10) / 10} MB`;
}

/** The body of an answer as read, refused when nested deeper than MAX_NESTING. */
export function readBody(text: string): ReadBody {
  if (text.trim() === '') return { body: undefined, json: true };
  let body: unknown;
  try {
    body = JSON.parse(text); // V8's parser does not recurse: any depth parses; what reads it next does
  } catch {
    return { body: text, json: false };
  }
  if (nestedDeeperThan(text, MAX_NESTING)) throw new AnswerRefused('too_deep', `JSON nested deeper than ${MAX_NESTING} levels`);
  return { body, json: true };
}

const HTML_START = /^\s*<(?:!doctype\s+html|html|head|body|\?xml|!--)/i;

/** An HTML page: by its Content-Type, or by how its text begins (a proxy may say application/json). */
export function isHtml(contentType: string | string[] | undefined, text: string): boolean {
  const type = (Array.isArray(contentType) ? contentType.join(',') : contentType ?? '').toLowerCase();
  return type.includes('text/html') || type.includes('xhtml') || HTML_START.test(text);
}

const PAGE = 'an HTML page: a proxy or a login page in the way?';

/**
 * Why an answer is not the API's, for the hint — undefined when it is. A 2xx must be JSON of the
 * operation's shape (an empty body only where the shape takes one); a 4xx that is an HTML page is
 * not the API's either: the API's own "not found" is what an erasure may count as not found.
 */
export function notTheApi(status: number, contentType: string | string[] | undefined, text: string, read: ReadBody, shape: AnswerShape | undefined): string | undefined {
  const html = isHtml(contentType, text);
  if (status >= 200 && status < 300) {
    if (html) return PAGE;
    if (!read.json) return 'not JSON: a proxy or another service in the way?';
    if (shape && !shape.accepts(read.body)) return `${read.body === undefined ? 'an empty answer' : 'JSON'} where the API gives ${shape.what}: is --base-url the API's?`;
    return undefined;
  }
  if (status >= 400 && status < 500 && status !== 429 && html) return PAGE;
  return undefined;
}
