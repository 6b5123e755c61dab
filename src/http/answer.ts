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

export function readBody(text: string): ReadBody {
  if (text.trim() === '') return { body: undefined, json: true };
  try {
    return { body: JSON.parse(text), json: true };
  } catch {
    return { body: text, json: false };
  }
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
