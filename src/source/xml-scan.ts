/**
 * The XML of a workbook's parts, read as it streams: the elements asked for come out whole, one at
 * a time (a `<row>`, a shared string's `<si>`, an `.ods` table's row), and the text between them is
 * dropped. Nothing else is held: an element longer than `max` characters is not kept — its start
 * tag comes out marked `long`, the rest of it is passed over as it streams — so one huge cell or
 * row costs a chunk of memory, not its size. Spreadsheet XML is a narrow, regular grammar (no
 * CDATA or comments inside the elements read, attributes in quotes): these patterns are the
 * parser, as in the readers that read it fastest.
 */
import type { Readable } from 'node:stream';

export interface Scanned {
  /** The element's local name (no namespace prefix). */
  tag: string;
  /** The whole element; only its start tag when `long` or `start`. */
  xml: string;
  /** Longer than the limit: only its start tag was kept. */
  long?: true;
  /** A start tag asked for as a marker (`starts`): the element's content comes after it. */
  start?: true;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');

/**
 * The elements named `whole` (e.g. `row`) as they stream past, with the start tags of `starts`
 * (e.g. an `.ods` `table`, to know which table a row is in), in document order.
 */
export async function* elements(text: Readable, whole: string, o: { max: number; starts?: string }): AsyncGenerator<Scanned> {
  const w = escapeRe(whole);
  const startAlt = o.starts ? `|<(?:\\w+:)?(${escapeRe(o.starts)})(?=[\\s/>])[^>]*>` : '';
  // 1: prefix of a whole element, 2: its name; 3: a marker's name.
  const any = new RegExp(`<((?:\\w+:)?)(${w})(?=[\\s/>])[^>]*?(?:/>|>[\\s\\S]*?</\\1${w}>)${startAlt}`, 'g');
  const open = new RegExp(`<((?:\\w+:)?)(${w})(?=[\\s/>])[^>]*>${o.starts ? `|<(?:\\w+:)?${escapeRe(o.starts)}(?=[\\s/>])` : ''}`, 'g');
  let buf = '';
  /** Inside a long element: the end tag that ends it, and whether the start tag was given out. */
  let skipping: string | undefined;
  try {
    for await (const chunk of text) {
      buf += chunk as string;
      for (;;) {
        if (skipping !== undefined) {
          const end = buf.indexOf(skipping);
          if (end === -1) {
            buf = buf.slice(-skipping.length);
            break;
          }
          buf = buf.slice(end + skipping.length);
          skipping = undefined;
        }
        any.lastIndex = 0;
        let end = 0;
        for (let m = any.exec(buf); m !== null; m = any.exec(buf)) {
          end = any.lastIndex;
          if (m[3] !== undefined) yield { tag: m[3], xml: m[0], start: true };
          else yield { tag: m[2] as string, xml: m[0] };
        }
        buf = buf.slice(end);
        // What is left: an element begun (kept, up to the limit), or text to drop but a tail
        // long enough to hold the start of a tag cut by the chunk's end.
        open.lastIndex = 0;
        const begun = open.exec(buf);
        if (!begun) {
          const lt = buf.lastIndexOf('<');
          buf = lt === -1 ? '' : buf.slice(lt);
          if (buf.length > o.max) buf = '';
          break;
        }
        buf = buf.slice(begun.index);
        if (buf.length <= o.max) break;
        // Too long: its start tag goes out marked, the rest is passed over until its end tag.
        const tagEnd = buf.indexOf('>');
        const startTag = buf.slice(0, tagEnd === -1 ? Math.min(buf.length, 4096) : Math.min(tagEnd + 1, 4096));
        yield { tag: begun[2] ?? o.starts ?? whole, xml: startTag, long: true };
        skipping = `</${begun[1] ?? ''}${begun[2] ?? whole}>`;
        buf = buf.slice(startTag.length);
      }
    }
  } finally {
    text.destroy();
  }
}

/** An attribute's value in a start tag (any namespace prefix), unescaped; undefined when absent. */
export function attr(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s(?:\\w+:)?${escapeRe(name)}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(tag);
  if (!m) return undefined;
  return unescapeXml(m[1] ?? m[2] ?? '');
}

const NAMED: Record<string, string> = { quot: '"', apos: "'", lt: '<', gt: '>', amp: '&' };

/** XML's escapes: the five named ones and numeric character references. */
export function unescapeXml(s: string): string {
  if (s.indexOf('&') === -1) return s;
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|quot|apos|lt|gt|amp);/g, (whole, ref: string) => {
    if (ref[0] !== '#') return NAMED[ref] as string;
    const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/**
 * A cell's text as OOXML escapes it besides XML: `_xHHHH_` for a character XML cannot carry (Excel
 * writes a CR in a cell as `_x000D_`), `_x005F_` before a literal one.
 */
export function unescapeOoxml(s: string): string {
  const xml = unescapeXml(s);
  if (xml.indexOf('_x') === -1) return xml;
  return xml.replace(/_x([0-9A-Fa-f]{4})_/g, (_w, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
