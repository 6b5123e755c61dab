/**
 * Column names to contact fields, for the import: each header read by the names of real exports
 * (src/source/headers.ts). Several columns may hold a phone or an e-mail: each is kept with the
 * type its export gives it (src/source/column-types.ts), and the one sent is chosen row by row by type
 * (choice.ts). `--map` overrides all of it.
 */
import { CONTACT_FIELDS, type ContactField } from '../api/fields.js';
import { UsageError } from '../errors.js';
import { fieldOfHeader, type HeaderTarget, normalizeHeader } from '../source/headers.js';
import { type EmailType, emailTypeOfName, numberedColumn, type PhoneType, phoneTypeOfName, vcardColumn } from '../source/column-types.js';

export const FIELDS = CONTACT_FIELDS;
export type Field = ContactField;
/** What a column maps to (src/source/headers.ts, HeaderTarget). */
export type Target = HeaderTarget;

/** The part names of a block's country column: Google's `Address 1 - Country`, Outlook's `Business Country/Region`, `Mailing Country`. */
const BLOCK_COUNTRY = new Set(['country', 'countryregion', 'countryorregion', 'countryname']);

/** Name columns that give way to a later, plainer one (Copper's Lead Name is the person, Close's is the company). */
const WEAK_NAME = new Set(['leadname']);

/** The address fields, which come from one block of columns at a time. */
export type AddressField = 'address' | 'city' | 'state' | 'zipCode';
const ADDRESS_FIELDS = new Set<string>(['address', 'city', 'state', 'zipCode']);
/** A column of an address block: `street2` lines are appended to the street, `formatted` stands in for a missing street. */
export type BlockPart = AddressField | 'street2' | 'formatted';

/**
 * Address blocks: Outlook's `Home …` / `Business …` / `Other …`, Google's `Address 1 - …` /
 * `Address 2 - …`, CRMs' `Mailing …` / `Billing …` / `Shipping …`. A column belongs to a block when
 * its name is one of these prefixes followed by an address part.
 */
const BLOCK_PREFIX = /^(home|business|work|other|mailing|billing|shipping|primary|personal|office|postal|address\d+|address(?:home|work|other))(.+)$/;
const BLOCK_PART: Record<string, BlockPart> = {
  street: 'address', streetaddress: 'address', address: 'address', addressline1: 'address', street1: 'address', streetroadname: 'address', line1: 'address',
  street2: 'street2', street3: 'street2', addressline2: 'street2', addressline3: 'street2', line2: 'street2', extendedaddress: 'street2',
  formatted: 'formatted', formattedaddress: 'formatted', '': 'formatted',
  city: 'city', town: 'city', citytown: 'city', locality: 'city',
  state: 'state', region: 'state', province: 'state', county: 'state', stateprovince: 'state', stateregion: 'state', statecounty: 'state',
  postalcode: 'zipCode', zip: 'zipCode', zipcode: 'zipCode', postcode: 'zipCode', zippostalcode: 'zipCode',
};

/** One address block: its name for messages and its columns. */
export interface AddressBlock {
  name: string;
  parts: Array<{ index: number; part: BlockPart }>;
}

/**
 * A column that may hold a row's phone or e-mail: its type by its name, or — Google's `Phone 2 -
 * Value` — the column holding its type (`Phone 2 - Type`/`- Label`) row by row.
 */
export interface ContactColumn<T> {
  index: number;
  name: string;
  type: T;
  typeIndex?: number;
}

export interface Mapping {
  /** Column index → field, for every mapped column except phones, e-mails and address columns. */
  columns: Array<{ index: number; target: Exclude<Target, 'phone' | 'email' | 'country' | AddressField> }>;
  /**
   * Address blocks in the order their first column appears; the first with a non-empty cell gives
   * street, city, region and postcode together (never a city of one block with the street of another).
   * Address columns outside any prefix (`Street`, `City`, `Zip`) form a block of their own.
   */
  addresses: AddressBlock[];
  /** Phone columns, in the file's order (a row's phone is chosen among them by type: choice.ts). */
  phones: ContactColumn<PhoneType>[];
  /** E-mail columns, in the file's order. */
  emails: ContactColumn<EmailType>[];
  /** Phone columns of an address block's owner (Outlook's `Business Phone` → business): index → block. */
  phoneBlocks: Map<number, string>;
  /**
   * Country columns, in column order: a plain `Country` (block ''), or an address block's (Google's
   * `Address 1 - Country` → address1, Outlook's `Business Country/Region` → business).
   */
  countries: Array<{ index: number; block: string; name: string }>;
  /** Headers that map to nothing, reported once. */
  unknown: string[];
  /** Human description: `Header → field`. */
  describe: string[];
}

/** Parses `--map "Header=field"` (field `-` or `ignore` drops the column). */
export function parseMaps(maps: string[]): Map<string, Target | null> {
  const out = new Map<string, Target | null>();
  const byNorm = new Map<string, Target>([...FIELDS, 'fullName', 'country'].map((f) => [normalizeHeader(f), f as Target]));
  for (const m of maps) {
    const eq = m.lastIndexOf('=');
    if (eq <= 0) throw new UsageError(`--map "${m}" is not Header=field`, `e.g. --map "Cell=phone"; fields: ${FIELDS.join(', ')}`);
    const header = m.slice(0, eq).trim();
    const field = m.slice(eq + 1).trim();
    if (field === '-' || field.toLowerCase() === 'ignore') {
      out.set(normalizeHeader(header), null);
      continue;
    }
    const target = byNorm.get(normalizeHeader(field));
    if (!target) throw new UsageError(`--map "${m}": "${field}" is not a contact field`, `fields: ${FIELDS.join(', ')}; country for the row's region (or - to ignore the column)`);
    out.set(normalizeHeader(header), target);
  }
  return out;
}

export function buildMapping(header: string[], maps: Map<string, Target | null>): Mapping {
  const mapping: Mapping = { columns: [], addresses: [], phones: [], emails: [], phoneBlocks: new Map(), countries: [], unknown: [], describe: [] };
  const blocks = new Map<string, AddressBlock & { taken: Set<BlockPart> }>();
  // Headers repeated in one block (two `Home Street` columns) are reported, not merged.
  const addToBlock = (blockName: string, name: string, index: number, part: BlockPart) => {
    let block = blocks.get(blockName);
    if (!block) blocks.set(blockName, (block = { name: blockName, parts: [], taken: new Set() }));
    if (block.taken.has(part) && part !== 'street2') {
      mapping.unknown.push(`${name} (a second ${part} column${blockName ? ` in the ${blockName} address` : ''})`);
      return;
    }
    block.taken.add(part);
    block.parts.push({ index, part });
    mapping.describe.push(`${name} → ${part === 'street2' || part === 'formatted' ? 'address' : part}`);
  };
  const taken = new Set<Target>();
  const seen = new Set<string>();
  /** Google's type columns, by kind and number: `Phone 2 - Type` → its index. */
  const typeColumns = { phone: new Map<number, number>(), email: new Map<number, number>() };
  const numbered = new Map<ContactColumn<unknown>, { kind: 'phone' | 'email'; n: number }>();
  const addPhone = (c: ContactColumn<PhoneType>) => {
    mapping.phones.push(c);
    const owner = BLOCK_PREFIX.exec(normalizeHeader(c.name))?.[1];
    if (owner !== undefined) mapping.phoneBlocks.set(c.index, owner);
  };
  header.forEach((name, index) => {
    const norm = normalizeHeader(name);
    if (norm === '' || seen.has(norm)) {
      if (norm !== '') mapping.unknown.push(`${name} (duplicate column)`);
      return;
    }
    seen.add(norm);
    const override = maps.get(norm);
    if (override === undefined) {
      const vcard = vcardColumn(name);
      if (vcard?.kind === 'phone') return void (addPhone({ index, name, type: vcard.type }), mapping.describe.push(`${name} → phone (${vcard.type})`));
      if (vcard?.kind === 'email') return void (mapping.emails.push({ index, name, type: vcard.type }), mapping.describe.push(`${name} → email (${vcard.type})`));
      const pair = numberedColumn(name);
      if (pair?.part === 'type') return void typeColumns[pair.kind].set(pair.n, index);
      if (pair?.kind === 'phone') {
        const c: ContactColumn<PhoneType> = { index, name, type: 'other' };
        numbered.set(c, pair);
        return void (addPhone(c), mapping.describe.push(`${name} → phone`));
      }
      if (pair?.kind === 'email') {
        const c: ContactColumn<EmailType> = { index, name, type: 'other' };
        numbered.set(c, pair);
        return void (mapping.emails.push(c), mapping.describe.push(`${name} → email`));
      }
      const phoneType = phoneTypeOfName(name);
      if (phoneType !== undefined) return void (addPhone({ index, name, type: phoneType }), mapping.describe.push(`${name} → phone (${phoneType})`));
      const emailType = emailTypeOfName(name);
      if (emailType !== undefined) return void (mapping.emails.push({ index, name, type: emailType }), mapping.describe.push(`${name} → email${emailType === 'plain' ? '' : ` (${emailType})`}`));
      const prefixed = BLOCK_PREFIX.exec(norm);
      if (prefixed && BLOCK_COUNTRY.has(prefixed[2] as string)) {
        mapping.countries.push({ index, block: prefixed[1] as string, name });
        mapping.describe.push(`${name} → country`);
        return;
      }
      const block = blockPart(norm);
      if (block) return addToBlock(block.prefix, name, index, block.part);
    }
    const target = override !== undefined ? override : fieldOfHeader(norm);
    if (target === null) return;
    if (target !== undefined && ADDRESS_FIELDS.has(target)) return addToBlock('', name, index, target as AddressField);
    if (target === undefined) return void mapping.unknown.push(name);
    if (target === 'country') {
      mapping.countries.push({ index, block: '', name });
      mapping.describe.push(`${name} → country`);
      return;
    }
    if (target === 'phone') {
      // A name the type table does not know is a phone of no particular place; --map's comes first.
      addPhone({ index, name, type: override !== undefined ? 'mapped' : 'main' });
      mapping.describe.push(`${name} → phone`);
      return;
    }
    if (target === 'email') {
      mapping.emails.push({ index, name, type: override !== undefined ? 'mapped' : 'plain' });
      mapping.describe.push(`${name} → email`);
      return;
    }
    // The first column for a field wins (Google exports have "E-mail 1 - Value" and "E-mail 2 - Value").
    const weak = mapping.columns.findIndex((c) => c.target === 'fullName' && WEAK_NAME.has(normalizeHeader(header[c.index] ?? '')));
    if (target === 'fullName' && override === undefined && weak !== -1 && !WEAK_NAME.has(norm)) {
      const [dropped] = mapping.columns.splice(weak, 1);
      mapping.unknown.push(`${header[dropped!.index]} (a second fullName column)`);
      mapping.describe = mapping.describe.filter((d) => d !== `${header[dropped!.index]} → fullName`);
      taken.delete('fullName');
    }
    if (taken.has(target)) {
      mapping.unknown.push(`${name} (a second ${target} column)`);
      return;
    }
    taken.add(target);
    mapping.columns.push({ index, target: target as Exclude<Target, 'phone' | 'email' | 'country' | AddressField> });
    mapping.describe.push(`${name} → ${target}`);
  });
  // Google's values take their type from their type column, row by row (a value without one is of no place).
  for (const [c, { kind, n }] of numbered) {
    const at = typeColumns[kind].get(n);
    if (at !== undefined) c.typeIndex = at;
  }
  mapping.addresses = [...blocks.values()].map(({ name, parts }) => ({ name, parts }));
  for (const m of maps.keys()) {
    if (!seen.has(m)) throw new UsageError(`--map names a column that is not in the file: "${m}"`, `columns: ${header.join(', ')}`);
  }
  return mapping;
}

/** The block and part of an address column, from its normalised name (`homepostalcode` → home, zipCode). */
function blockPart(norm: string): { prefix: string; part: BlockPart } | undefined {
  const m = BLOCK_PREFIX.exec(norm);
  if (!m) return undefined;
  const part = BLOCK_PART[m[2] as string];
  return part === undefined ? undefined : { prefix: m[1] as string, part };
}
