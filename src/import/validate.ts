/**
 * One row to one contact body, or the reasons it is rejected: the phone in E.164 (the service's
 * matching key — no region, no national number), a plausible e-mail, trimmed strings, tags split
 * on `;` or `,`, the address from one block. Nothing here touches the network.
 *
 * Google Contacts puts several values in one cell joined by ` ::: ` (two e-mails, two phones): a
 * field takes the first, tags take them all (docs/commands/import.md, "Mapping columns to fields").
 */
import { type PhoneResult, toE164 } from '../phone/e164.js';
import { type Candidate, chooseEmail, MULTI, phoneCandidates } from './choice.js';
import type { PhoneType } from '../source/column-types.js';
import type { AddressBlock, Mapping } from './mapping.js';
import type { RowCountries, RowRegion } from './row-country.js';


/** The first of Google's ` ::: `-joined values (the whole cell when there is one). */
export function firstValue(cell: string): string {
  const at = cell.search(MULTI);
  return (at === -1 ? cell : cell.slice(0, at)).trim();
}

/** The first address block with a non-empty cell: the row's address. */
export function addressBlockOf(blocks: AddressBlock[], cells: string[]): AddressBlock | undefined {
  return blocks.find((block) => block.parts.some(({ index }) => firstValue(cells[index] ?? '') !== ''));
}

/** The address of the first block with a non-empty cell, whole: street, city, region, postcode. */
function addressOf(blocks: AddressBlock[], cells: string[], body: ContactBody): void {
  const block = addressBlockOf(blocks, cells);
  if (!block) return;
  const street: string[] = [];
  let formatted: string | undefined;
  for (const { index, part } of block.parts) {
    const value = firstValue((cells[index] ?? '').replace(/\s+/g, ' '));
    if (value === '') continue;
    if (part === 'address' || part === 'street2') street.push(value);
    else if (part === 'formatted') formatted ??= value;
    else body[part] ??= value;
  }
  if (street.length > 0) body.address = street.join(', ');
  else if (formatted !== undefined) body.address = formatted;
}

export interface ContactBody {
  [field: string]: string | string[];
}

/**
 * `where`: the row's region and where it came from, when the file has country columns. `phone`:
 * the column the phone sent came from, the one it stood in for (not valid), and whether the row
 * held other numbers; `email` likewise.
 */
export type Checked = (
  | { ok: true; body: ContactBody; e164: string | undefined; phone?: { column: string; insteadOf?: string; others: boolean }; email?: { column: string; insteadOf?: string } }
  | { ok: false; reason: string }
) & { where?: RowRegion };

/** No cell of a contact is this long; the rejects file keeps it, the request would not. */
const MAX_CELL = 64 * 1024;

export interface CheckOptions {
  region: string | undefined;
  allowNoPhone: boolean;
  headerLength: number;
  /** Each row's own region from its country column (row-country.ts); `region` is then its default. */
  countries?: RowCountries | undefined;
  /** The row's other phone numbers go into its notes (`--keep-other-phones`). */
  keepOtherPhones?: boolean;
}

/** The phone a row is matched on first (choice.ts), and the region it is read with: what a worker thread parses. */
export function preferredPhone(cells: string[], mapping: Mapping, o: Pick<CheckOptions, 'region' | 'countries'>): { text: string; region: string | undefined } | undefined {
  const first = phoneCandidates(cells, mapping)[0];
  if (!first) return undefined;
  return { text: first.text, region: o.countries?.any ? o.countries.of(cells, first.column.index).region : o.region };
}

const digitsOf = (text: string) => text.replace(/\D/g, '');

/**
 * `phone`: what `toE164` returns for the row's phone, when it was worked out already (a dry run's
 * phones are parsed on a worker thread, phone-worker.ts); otherwise it is parsed here.
 */
export function checkRow(cells: string[], mapping: Mapping, o: CheckOptions, phone?: PhoneResult): Checked {
  if (cells.length > o.headerLength) {
    const extra = cells.slice(o.headerLength).some((c) => c.trim() !== '');
    if (extra) return { ok: false, reason: `row has ${cells.length} cells but the header has ${o.headerLength}` };
  }
  for (let i = 0; i < cells.length; i++) {
    const length = (cells[i] as string).length;
    if (length > MAX_CELL) return { ok: false, reason: `the cell in column ${i + 1} holds ${length} characters (over 64 KiB): a broken export?` };
  }
  const body: ContactBody = {};
  let fullName: string | undefined;
  for (const { index, target } of mapping.columns) {
    const value = (cells[index] ?? '').trim();
    if (value === '') continue;
    if (target === 'tags') {
      // `;` `,` and Google's ` ::: `; Google's system groups (`* myContacts`, `* starred`) are not tags.
      const tags = value.split(/:::|[;,]/).map((t) => t.trim()).filter((t) => t !== '' && !t.startsWith('* '));
      if (tags.length > 0) body.tags = tags;
    } else if (target === 'fullName') fullName = firstValue(value);
    else body[target] = firstValue(value).replace(/\s+/g, (ws) => (ws.includes('\n') && target === 'notes' ? ws : ' '));
  }
  addressOf(mapping.addresses, cells, body);
  const email = chooseEmail(cells, mapping);
  if (email && 'invalid' in email) return { ok: false, reason: `email "${email.invalid}" is not an e-mail address` };
  if (email) body.email = email.email.text;
  if (fullName !== undefined && body.firstName === undefined && body.lastName === undefined) {
    const parts = fullName.split(/\s+/);
    body.firstName = parts.length > 1 ? parts.slice(0, -1).join(' ') : fullName;
    if (parts.length > 1) body.lastName = parts[parts.length - 1] as string;
  }

  const emailSeen = email && 'email' in email ? { column: email.email.column.name, ...(email.insteadOf ? { insteadOf: email.insteadOf.column.name } : {}) } : undefined;

  const all = phoneCandidates(cells, mapping);
  if (all.length === 0) {
    const where = o.countries?.of(cells);
    if (!o.allowNoPhone) return { ok: false, reason: 'no phone (the phone is how the service matches a contact; --allow-no-phone imports it anyway)', where };
    if (Object.keys(body).length === 0) return { ok: false, reason: 'the row has no contact field', where };
    return { ok: true, body, e164: undefined, where, ...(emailSeen ? { email: emailSeen } : {}) };
  }
  // The first valid phone, most wanted first (choice.ts); each read in its own column's region.
  const regionAt = (c: Candidate<PhoneType>) => o.countries?.of(cells, c.column.index);
  let first: { c: Candidate<PhoneType>; result: PhoneResult; where: RowRegion | undefined } | undefined;
  let chosen: { c: Candidate<PhoneType>; result: Extract<PhoneResult, { ok: true }>; where: RowRegion | undefined } | undefined;
  for (const c of all) {
    const where = regionAt(c);
    const result = first === undefined && phone !== undefined ? phone : toE164(c.text, where ? where.region : o.region);
    first ??= { c, result, where };
    if (result.ok) {
      chosen = { c, result, where };
      break;
    }
  }
  if (!chosen) {
    const { c, result, where } = first as { c: Candidate<PhoneType>; result: Extract<PhoneResult, { ok: false }>; where: RowRegion | undefined };
    return { ok: false, reason: where && o.countries ? o.countries.explain(c.text, result, where) : result.reason, where: where ?? o.countries?.of(cells) };
  }
  phone = chosen.result;
  const where = chosen.where;
  body.phone = phone.e164;
  // The numbers not sent, in E.164 when they read as one, else as written, each with its type: the
  // sent number written another way (Outlook's `Primary Phone` 07400… beside `Mobile Phone` +44 7400…)
  // is no other number, neither counted nor noted.
  const kept = new Set([phone.e164]);
  const listed: string[] = [];
  for (const c of all) {
    if (c === chosen.c || digitsOf(c.text).length < 6 || digitsOf(c.text) === digitsOf(chosen.c.text)) continue;
    const r = toE164(c.text, regionAt(c)?.region ?? o.region);
    const shown = r.ok ? r.e164 : c.text;
    if (kept.has(shown)) continue;
    kept.add(shown);
    listed.push(`${shown} (${c.label})`);
  }
  if (o.keepOtherPhones && listed.length > 0) body.notes = typeof body.notes === 'string' && body.notes !== '' ? `${body.notes}\nOther phones: ${listed.join(', ')}` : `Other phones: ${listed.join(', ')}`;
  const seen = { phone: { column: chosen.c.column.name, ...(chosen.c !== first?.c ? { insteadOf: (first as { c: Candidate<PhoneType> }).c.column.name } : {}), others: listed.length > 0 }, ...(emailSeen ? { email: emailSeen } : {}) };
  // The API has no field for an extension: it is kept in the notes rather than lost (docs/commands/import.md).
  if (phone.ext !== undefined) {
    const note = `Phone extension: ${phone.ext}`;
    body.notes = typeof body.notes === 'string' && body.notes !== '' ? `${body.notes}\n${note}` : note;
  }
  return { ok: true, body, e164: phone.e164, where, ...seen };
}
