/**
 * Column names to contact fields. Names are compared with case, spaces, `_`, `-` and dots ignored,
 * against the API's own names and the headers of the exports operators really have: Google
 * Contacts, Outlook, HubSpot / Salesforce-style CRMs, Excel lead sheets. Several columns may hold
 * a phone: mobile ones are preferred, then the first non-empty. `--map` overrides all of it.
 */
import { UsageError } from '../errors.js';

export const FIELDS = ['firstName', 'lastName', 'email', 'phone', 'address', 'city', 'state', 'zipCode', 'tags', 'status', 'notes'] as const;
export type Field = (typeof FIELDS)[number];
/** `fullName` is split into first and last name when those have no column of their own. */
export type Target = Field | 'fullName';

export function normalizeHeader(h: string): string {
  return h.toLowerCase().replace(/[\s_\-.:/()]+/g, '');
}

const ALIASES: Record<Target, string[]> = {
  firstName: ['firstname', 'first', 'givenname', 'forename', 'prenom', 'prénom', 'vorname', 'nombre', 'contactfirstname', 'leadfirstname'],
  lastName: ['lastname', 'last', 'surname', 'familyname', 'nom', 'nachname', 'apellido', 'contactlastname', 'leadlastname'],
  fullName: ['name', 'fullname', 'contactname', 'displayname', 'leadname', 'contact'],
  email: ['email', 'emailaddress', 'e-mail', 'email1value', 'email1', 'primaryemail', 'workemail', 'email2value', 'emailaddress2', 'personalemail', 'mail'],
  phone: [
    'mobile', 'mobilephone', 'mobilenumber', 'cell', 'cellphone', 'cellular', 'mobilephonenumber',
    'phone', 'phonenumber', 'phone1value', 'telephone', 'téléphone', 'telefon', 'telefono', 'tel', 'portable', 'handy', 'primaryphone', 'businessphone', 'workphone', 'homephone', 'phone2value', 'phone3value', 'otherphone', 'businessphone2', 'homephone2', 'companymainphone', 'landline', 'number',
  ],
  address: ['address', 'street', 'streetaddress', 'address1street', 'address1formatted', 'homestreet', 'businessstreet', 'otherstreet', 'addressline1', 'mailingstreet', 'address1'],
  city: ['city', 'town', 'ville', 'stadt', 'ciudad', 'address1city', 'homecity', 'businesscity', 'othercity', 'mailingcity', 'locality'],
  state: ['state', 'region', 'province', 'county', 'stateprovince', 'stateregion', 'address1region', 'homestate', 'businessstate', 'otherstate', 'mailingstate'],
  zipCode: ['zipcode', 'zip', 'postalcode', 'codepostal', 'cp', 'postcode', 'zippostalcode', 'address1postalcode', 'homepostalcode', 'businesspostalcode', 'otherpostalcode', 'mailingpostalcode', 'plz'],
  tags: ['tags', 'tag', 'labels', 'label', 'groupmembership', 'categories', 'category', 'segments'],
  status: ['status', 'leadstatus', 'contactstatus', 'lifecyclestage', 'stage'],
  notes: ['notes', 'note', 'comments', 'comment', 'description', 'remarks'],
};

/** Phone columns whose name says mobile: preferred when a row has several phones. */
const MOBILE = new Set(['mobile', 'mobilephone', 'mobilenumber', 'cell', 'cellphone', 'cellular', 'mobilephonenumber', 'portable', 'handy']);

const LOOKUP = new Map<string, Target>();
for (const [target, names] of Object.entries(ALIASES) as Array<[Target, string[]]>) for (const n of names) LOOKUP.set(normalizeHeader(n), target);

export interface Mapping {
  /** Column index → field, for every mapped column except phones. */
  columns: Array<{ index: number; target: Exclude<Target, 'phone'> }>;
  /** Phone columns in order of preference. */
  phones: number[];
  /** Headers that map to nothing, reported once. */
  unknown: string[];
  /** Human description: `Header → field`. */
  describe: string[];
}

/** Parses `--map "Header=field"` (field `-` or `ignore` drops the column). */
export function parseMaps(maps: string[]): Map<string, Target | null> {
  const out = new Map<string, Target | null>();
  const byNorm = new Map<string, Target>([...FIELDS, 'fullName'].map((f) => [normalizeHeader(f), f as Target]));
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
    if (!target) throw new UsageError(`--map "${m}": "${field}" is not a contact field`, `fields: ${FIELDS.join(', ')} (or - to ignore the column)`);
    out.set(normalizeHeader(header), target);
  }
  return out;
}

export function buildMapping(header: string[], maps: Map<string, Target | null>): Mapping {
  const mapping: Mapping = { columns: [], phones: [], unknown: [], describe: [] };
  const taken = new Set<Target>();
  const seen = new Set<string>();
  const mobiles: number[] = [];
  const others: number[] = [];
  header.forEach((name, index) => {
    const norm = normalizeHeader(name);
    if (norm === '' || seen.has(norm)) {
      if (norm !== '') mapping.unknown.push(`${name} (duplicate column)`);
      return;
    }
    seen.add(norm);
    const override = maps.get(norm);
    const target = override !== undefined ? override : LOOKUP.get(norm);
    if (target === null) return;
    if (target === undefined) return void mapping.unknown.push(name);
    if (target === 'phone') {
      (override === undefined && !MOBILE.has(norm) ? others : mobiles).push(index);
      mapping.describe.push(`${name} → phone`);
      return;
    }
    // The first column for a field wins (Google exports have "E-mail 1 - Value" and "E-mail 2 - Value").
    if (taken.has(target)) {
      mapping.unknown.push(`${name} (a second ${target} column)`);
      return;
    }
    taken.add(target);
    mapping.columns.push({ index, target: target as Exclude<Target, 'phone'> });
    mapping.describe.push(`${name} → ${target}`);
  });
  mapping.phones = [...mobiles, ...others];
  for (const m of maps.keys()) {
    if (!seen.has(m)) throw new UsageError(`--map names a column that is not in the file: "${m}"`, `columns: ${header.join(', ')}`);
  }
  return mapping;
}
