/**
 * Column names, as every bulk job reads them: compared with case, spaces, `_`, `-`, dots and
 * brackets ignored, and the names of the exports operators really have (Google Contacts, Outlook,
 * HubSpot / Salesforce-style CRMs, Excel lead sheets) read as the contact field they hold — for
 * the import's mapping (src/import/mapping.ts) and the columns of a file of erasure requests.
 */
import type { ContactField } from '../api/fields.js';

/**
 * What a column can hold: a contact field, a full name (split into first and last name by the
 * import), or a `country` — no field of a contact but the region a row's phone is read with.
 */
export type HeaderTarget = ContactField | 'fullName' | 'country';

/** A header as compared: `E-mail Address` and `email_address` are one name. */
export function normalizeHeader(h: string): string {
  return h.toLowerCase().replace(/[\s_\-.:/()]+/g, '');
}

/**
 * Aliases by field. Besides generic names, the headers of real exports, looked up (not guessed)
 * in each product's documentation or in export files and scripts published with it:
 * - Google Contacts ("Google CSV"): First Name, Last Name, E-mail 1 - Value, Phone 1 - Value,
 *   Labels, Notes, Address N - Street/City/Region/Postal Code/Formatted; the older format's Given
 *   Name, Family Name, Group Membership.
 * - Outlook: E-mail Address, E-mail 2 Address, Mobile Phone, Business Phone, Home Phone, Primary
 *   Phone, Other Phone, Categories, Notes, Business/Home/Other Street/City/State/Postal Code.
 * - Apple Contacts' CSV import/export labels: first, last, note, phone (home|work|mobile),
 *   email (home|work), address (home|work) street/city/state/zip.
 * - HubSpot: First name, Last name, Email address, Phone number, Mobile phone number, WhatsApp
 *   Phone Number, Private e-mail address, Additional email addresses, Street Address, City,
 *   State/Region, Zip code / Postal Code, Lead status, Lifecycle stage.
 * - Thunderbird and Atmail (roundcube's csv2vcard maps): Primary/Secondary Email, Mobile Number,
 *   Home Mobile, Work Mobile; a vCard converted to CSV: FN (its fax, pager and typed columns:
 *   src/source/column-types.ts).
 * - Salesforce (API names and report labels): FirstName, LastName, Email, Phone, MobilePhone,
 *   HomePhone, OtherPhone, AssistantPhone, Description, Status, Mailing/Other/Billing Street, City, State,
 *   PostalCode (report: Mailing Zip/Postal Code, Mailing State/Province).
 * - Zoho CRM: First Name, Last Name, Email, Secondary Email, Phone, Mobile, Asst Phone, Street, City, State,
 *   Zip Code, Description, Lead Status, Tag; contacts' Mailing/Other Street, City, State, Zip.
 * - Pipedrive: Person - Name, Person - Email, Person - Phone, Person - Label, Person - Note; its
 *   newer export one column a label: Person - First name, Person - Last name, Person - Phone - Work
 *   / Home / Mobile / Other, Person - Email - Work / Home / Other (typed: src/source/column-types.ts).
 * - Close: contact_name, primary_email, primary_phone, Contact Name/Email/Phone, Lead Status
 *   (Close's lead_name is the company, so it is not taken for the person's name).
 * - Copper: Lead Name / Person Name, Work Email, Phone, Description, Status, Tags.
 */
const ALIASES: Record<HeaderTarget, string[]> = {
  firstName: ['firstname', 'first', 'givenname', 'forename', 'prenom', 'prénom', 'vorname', 'nombre', 'contactfirstname', 'leadfirstname', 'personfirstname'],
  lastName: ['lastname', 'last', 'surname', 'familyname', 'nom', 'nachname', 'apellido', 'contactlastname', 'leadlastname', 'personlastname'],
  fullName: ['name', 'fullname', 'contactname', 'displayname', 'personname', 'leadname', 'contact', 'fn'],
  email: [
    'email', 'emailaddress', 'e-mail', 'email1value', 'email1', 'primaryemail', 'workemail', 'email2value', 'emailaddress2', 'email2address', 'email3address',
    'personalemail', 'mail', 'secondaryemail', 'personemail', 'contactemail', 'emailhome', 'emailwork', 'emailother',
    'homeemail', 'businessemail', 'otheremail', 'privateemail', 'privateemailaddress', 'additionalemailaddresses',
  ],
  phone: [
    'mobile', 'mobilephone', 'mobilenumber', 'mobileno', 'cell', 'cellphone', 'cellular', 'cellno', 'cellnumber', 'mobilephonenumber', 'phonemobile',
    'phone', 'contactnumber', 'contactno', 'phoneno', 'telno', 'telephonenumber', 'telephoneno',
    'phonenumber', 'phone1value', 'telephone', 'téléphone', 'telefon', 'telefono', 'tel', 'portable', 'handy', 'primaryphone', 'businessphone', 'workphone', 'homephone', 'phone2value', 'phone3value', 'otherphone', 'businessphone2', 'homephone2', 'companymainphone', 'landline', 'number',
    'personphone', 'contactphone', 'phonehome', 'phonework', 'phonemain', 'phoneother',
    'homemobile', 'workmobile', 'businessmobile', 'whatsapp', 'whatsappnumber', 'whatsappphonenumber', 'privatephone', 'officephone', 'mainphone',
  ],
  address: ['address', 'street', 'streetaddress', 'addressline1', 'address1', 'adresse', 'direccion', 'dirección', 'strasse', 'straße'],
  city: ['city', 'town', 'ville', 'stadt', 'ort', 'ciudad', 'locality'],
  state: ['state', 'region', 'province', 'county', 'stateprovince', 'stateregion'],
  zipCode: ['zipcode', 'zip', 'postalcode', 'codepostal', 'cp', 'postcode', 'zippostalcode', 'plz'],
  tags: ['tags', 'tag', 'labels', 'label', 'groupmembership', 'categories', 'category', 'segments', 'personlabel'],
  status: ['status', 'leadstatus', 'contactstatus', 'lifecyclestage', 'stage', 'statuslabel'],
  notes: ['notes', 'note', 'comments', 'comment', 'description', 'remarks', 'personnote'],
  // HubSpot's `Country/Region`; French, German, Spanish, Italian, Dutch. Not `Country Code`, which
  // is as often the dialling code as the ISO one (--map "Country Code=country" says which).
  country: ['country', 'countryregion', 'countryorregion', 'countryname', 'pays', 'land', 'pais', 'país', 'nazione', 'paese'],
};

const LOOKUP = new Map<string, HeaderTarget>();
for (const [target, names] of Object.entries(ALIASES) as Array<[HeaderTarget, string[]]>) for (const n of names) LOOKUP.set(normalizeHeader(n), target);

/** The field a header names by the aliases above (undefined: none): how erasure requests find their columns. */
export function fieldOfHeader(header: string): HeaderTarget | undefined {
  return LOOKUP.get(normalizeHeader(header));
}

/** Names a list shows before "and N more", and the characters shown of each. */
const NAMES_SHOWN = 10;
const NAME_CHARS = 60;

/**
 * Column names for a message: the first few, each cut short, then "and N more" — a header of
 * 20,000 columns is one short line on stderr, not 170 KB.
 */
export function someNames(names: readonly string[]): string {
  const shown = names.slice(0, NAMES_SHOWN).map((n) => (n.length > NAME_CHARS ? `${n.slice(0, NAME_CHARS)}…` : n));
  const more = names.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more.toLocaleString('en-US')} more` : shown.join(', ');
}
