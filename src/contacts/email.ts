/** How an e-mail a person gives or a contact holds is compared (find, rm, the own-copies search). */

/** `Zoë Müller <zoe@example.com>`, `<zoe@example.com>`: the address between the brackets. */
const BRACKETED = /<\s*(?:mailto:)?([^<>\s@]+@[^<>\s@]+)\s*>/i;

/**
 * An e-mail as compared: the address alone (as a mail client writes it with a name —
 * `Zoë Müller <zoe@example.com>` — or as a link, `mailto:zoe@example.com`), without surrounding
 * spaces, quotes or case, in one Unicode form that also reads full-width letters as an IME types
 * them (`ｚｏｅ＠example.com`) and `ë` typed as one character or as `e` and a combining mark as one.
 */
export function emailKey(email: string): string {
  const text = email.normalize('NFKC').trim();
  const address = BRACKETED.exec(text)?.[1] ?? text.replace(/^["']+|["']+$/g, '').trim().replace(/^mailto:/i, '');
  return address.trim().toLowerCase();
}
