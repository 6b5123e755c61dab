/** How an e-mail a person gives or a contact holds is compared (find, rm, the own-copies search). */
import { domainToASCII } from 'node:url';

/** `Zoë Müller <zoe@example.com>`, `<zoe@example.com>`: the address between the brackets. */
const BRACKETED = /<\s*(?:mailto:)?([^<>\s@]+@[^<>\s@]+)\s*>/i;

/**
 * An e-mail as compared: the address alone (as a mail client writes it with a name —
 * `Zoë Müller <zoe@example.com>` — or as a link, `mailto:zoe@example.com`), without surrounding
 * spaces, invisible marks (a zero-width space, a direction mark), quotes or case, in one Unicode
 * form that also reads full-width letters as an IME types them (`ｚｏｅ＠example.com`) and `ë` typed
 * as one character or as `e` and a combining mark as one, and a domain of other letters as the DNS
 * writes it (`zoe@xn--mller-kva.de` for `zoe@müller.de`).
 */
export function emailKey(email: string): string {
  const text = email.replace(/\p{Cf}/gu, '').normalize('NFKC').trim();
  const address = (BRACKETED.exec(text)?.[1] ?? text.replace(/^["']+|["']+$/g, '').trim().replace(/^mailto:/i, '')).trim().toLowerCase();
  // A domain in its own letters and in the DNS's ASCII form (`müller.de`, `xn--mller-kva.de`) is one.
  const at = address.lastIndexOf('@');
  if (at < 0 || !/[^\x00-\x7f]|xn--/.test(address.slice(at))) return address;
  const domain = domainToASCII(address.slice(at + 1));
  return domain === '' ? address : `${address.slice(0, at)}@${domain}`;
}

/**
 * The addresses a stored e-mail field holds, each as compared: one, or several when the field holds
 * more than one (`zoe@a.org; zoe@b.org`, `zoe@a.org, Zoë <zoe@b.org>`), as CRMs and the phone
 * field do — none of them may hide the person.
 */
export function emailKeys(field: string): string[] {
  const text = field.replace(/\p{Cf}/gu, '').normalize('NFKC');
  if ((text.match(/@/g) ?? []).length < 2) return [emailKey(field)].filter((k) => k !== '');
  return [...new Set(text.split(/[,;|\s]+(?=[^@]*@)/).map(emailKey).filter((k) => k.includes('@')))];
}

/** Letters of other scripts drawn like Latin ones (Cyrillic, Greek), as a Latin keyboard user reads them. */
const LOOKALIKE: Record<string, string> = Object.fromEntries(
  [...'аa еe оo рp сc уy хx іi јj ѕs һh ԁd ӏl ԛq ԝw ьb αa οo νv ρp τt ιi κk χx υu εe ϲc'.matchAll(/(\S)(\S)/g)].map((m) => [m[1] as string, m[2] as string]),
);

/**
 * An address as it looks: Cyrillic and Greek letters drawn like Latin ones read as those (`zоe`
 * with a Cyrillic `о` looks like `zoe`). Two addresses that look the same but are not are not
 * taken for one person (erasing is irreversible, and they are different mailboxes): a person is
 * told of them instead.
 */
export function emailLook(key: string): string {
  return /[^\x00-\x7f]/.test(key) ? [...key].map((ch) => LOOKALIKE[ch] ?? ch).join('') : key;
}
