/**
 * Values that arrive as `unknown` — commander's option values, the JSON of a journal's record —
 * read as what callctl needs, never cast: a string or nothing, a list of strings.
 */

/** The value when it is a string, else undefined. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The value's items as strings when it is a list, else none. */
export const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
