/**
 * What a contact export says about each of a row's phones and e-mails: its type, from the column's
 * name (Outlook's `Mobile Phone`, `Business Fax`; Thunderbird's `Mobile Number`; HubSpot's `Mobile
 * Phone Number`, `WhatsApp Phone Number`, `Private e-mail address`; Atmail's `Home Mobile`;
 * Pipedrive's `Person - Phone - Mobile`, `Person - Email - Work`), from a type column beside it
 * (Google's `Phone 1 - Type` or `Phone 1 - Label` for `Phone 1 - Value`), or from a vCard property written as a header (`TEL;TYPE=CELL`, `EMAIL;TYPE=INTERNET,WORK`), as the
 * exports write them (roundcube's csv2vcard maps and test exports: gmail.csv, outlook.csv,
 * tb_plain.csv). The phone sent is chosen by these types (choice.ts, docs/commands/import.md "Which phone, which e-mail").
 */
import { normalizeHeader } from './headers.js';

/** A phone's type, most wanted first: a call reaches a mobile best, a fax or pager never a person. */
export const PHONE_TYPES = ['mapped', 'mobile', 'work', 'home', 'main', 'other', 'fax', 'pager'] as const;
export type PhoneType = (typeof PHONE_TYPES)[number];
/** An e-mail's type, most wanted first (the order; a plain `Email` column is between work and other). */
export const EMAIL_TYPES = ['mapped', 'home', 'work', 'plain', 'other', 'private'] as const;
export type EmailType = (typeof EMAIL_TYPES)[number];

/** Phone columns by name (compared as headers are, normalizeHeader). */
const PHONE_NAMES: Record<string, PhoneType> = {};
const phoneNames = (type: PhoneType, names: string[]) => names.forEach((n) => (PHONE_NAMES[n] = type));
phoneNames('mobile', [
  'mobile', 'mobilephone', 'mobilenumber', 'mobileno', 'cell', 'cellphone', 'cellular', 'cellno', 'cellnumber', 'mobilephonenumber', 'phonemobile', 'portable', 'handy',
  'homemobile', 'workmobile', 'businessmobile', 'personalmobile', 'whatsapp', 'whatsappnumber', 'whatsappphone', 'whatsappphonenumber', 'telmobile', 'mobiletelephone', 'personphonemobile',
]);
phoneNames('work', ['businessphone', 'businessphone2', 'workphone', 'phonework', 'officephone', 'directphone', 'directline', 'workphonenumber', 'businessphonenumber', 'telwork', 'personphonework']);
phoneNames('home', ['homephone', 'homephone2', 'phonehome', 'privatephone', 'personalphone', 'homephonenumber', 'telhome', 'personphonehome']);
phoneNames('main', [
  'phone', 'phonenumber', 'telephone', 'telephonenumber', 'telephoneno', 'tel', 'telno', 'phoneno', 'primaryphone', 'phonemain', 'mainphone', 'companymainphone', 'contactnumber',
  'contactno', 'number', 'personphone', 'contactphone', 'landline', 'téléphone', 'telefon', 'telefono',
]);
phoneNames('other', ['otherphone', 'phoneother', 'assistantsphone', "assistant'sphone", 'assistantphone', 'asstphone', 'callback', 'carphone', 'radiophone', 'isdn', 'ttytddphone', 'googlevoice', 'personphoneother']);
phoneNames('fax', ['fax', 'faxnumber', 'businessfax', 'homefax', 'otherfax', 'workfax', 'faxwork', 'faxhome', 'faxphone', 'telefax']);
phoneNames('pager', ['pager', 'pagernumber', 'pagerphone', 'beeper']);

/** E-mail columns by name. */
const EMAIL_NAMES: Record<string, EmailType> = {};
const emailNames = (type: EmailType, names: string[]) => names.forEach((n) => (EMAIL_NAMES[n] = type));
emailNames('home', ['homeemail', 'emailhome', 'personalemail', 'personalemailaddress', 'homeemailaddress', 'personemailhome']);
emailNames('work', ['workemail', 'emailwork', 'businessemail', 'businessemailaddress', 'workemailaddress', 'officeemail', 'personemailwork']);
emailNames('plain', ['email', 'emailaddress', 'e-mail', 'mail', 'primaryemail', 'emailaddress2', 'email2address', 'email3address', 'secondaryemail', 'email1', 'email2', 'email3', 'personemail', 'contactemail', 'courriel']);
emailNames('other', ['otheremail', 'emailother', 'additionalemailaddresses', 'additionalemails', 'alternateemail', 'alternativeemail', 'personemailother']);
emailNames('private', ['privateemailaddress', 'privateemail']);

/** The type of a phone column by its name; undefined when the name says no phone. */
export function phoneTypeOfName(header: string): PhoneType | undefined {
  const norm = normalizeHeader(header);
  return PHONE_NAMES[norm] ?? (/^phone\d+value$/.test(norm) ? 'other' : undefined);
}

/** The type of an e-mail column by its name; undefined when the name says no e-mail. */
export function emailTypeOfName(header: string): EmailType | undefined {
  const norm = normalizeHeader(header);
  return EMAIL_NAMES[norm] ?? (/^e?mail\d+value$/.test(norm) ? 'other' : undefined);
}

/** Google's numbered pairs: `Phone 2 - Value` and its `Phone 2 - Type` (older) or `- Label`. */
export function numberedColumn(header: string): { kind: 'phone' | 'email'; n: number; part: 'value' | 'type' } | undefined {
  const m = /^(phone|e?mail)(\d+)(value|type|label)$/.exec(normalizeHeader(header));
  if (!m) return undefined;
  return { kind: m[1] === 'phone' ? 'phone' : 'email', n: Number(m[2]), part: m[3] === 'value' ? 'value' : 'type' };
}

/**
 * A vCard property written as a header (`TEL;TYPE=CELL`, `item1.TEL;type=pref`, vCard 2.1's
 * `TEL;WORK;FAX`, `EMAIL;TYPE=INTERNET,HOME`): which kind, and its type.
 */
export function vcardColumn(header: string): { kind: 'phone'; type: PhoneType } | { kind: 'email'; type: EmailType } | undefined {
  const m = /^(?:item\d+\.)?(tel|email)((?:;[^;]*)*)$/i.exec(header.trim());
  // A bare `Tel` or `Email` is a plain column, typed by its name (main, plain), not a vCard's untyped `TEL`.
  if (!m || (m[2] === '' && !/^item\d+\./i.test(header.trim()))) return undefined;
  const params = new Set(
    (m[2] ?? '')
      .split(';')
      .flatMap((p) => p.replace(/^type=/i, '').split(','))
      .map((p) => p.trim().toLowerCase())
      .filter((p) => p !== ''),
  );
  if ((m[1] as string).toLowerCase() === 'tel') return { kind: 'phone', type: phoneTypeOfWords(params) ?? 'other' };
  return { kind: 'email', type: params.has('home') ? 'home' : params.has('work') ? 'work' : params.has('pref') ? 'plain' : 'other' };
}

/**
 * A phone's type from the words a label holds (Google's `Work Fax`, `* Mobile`, `iPhone`; vCard's
 * `CELL,VOICE`): fax and pager win over the place (a work fax is a fax).
 */
function phoneTypeOfWords(words: Set<string>): PhoneType | undefined {
  if (words.has('fax') || words.has('workfax') || words.has('homefax') || words.has('telefax')) return 'fax';
  if (words.has('pager') || words.has('beeper')) return 'pager';
  if (words.has('mobile') || words.has('cell') || words.has('iphone') || words.has('cellular') || words.has('whatsapp')) return 'mobile';
  if (words.has('work') || words.has('business') || words.has('office')) return 'work';
  if (words.has('home') || words.has('private') || words.has('personal')) return 'home';
  if (words.has('main') || words.has('pref') || words.has('primary')) return 'main';
  return undefined;
}

/** A phone's type from a type cell's text (Google's `Mobile`, `* Work`, `Work Fax`, a label of one's own: other). */
export function phoneTypeOfLabel(label: string): PhoneType {
  const words = new Set(label.replace(/^\*\s*/, '').toLowerCase().split(/[^a-z]+/).filter((w) => w !== ''));
  return phoneTypeOfWords(words) ?? 'other';
}

/** An e-mail's type from a type cell's text (Google's `* Home`, `Work`, `Other`, a label of one's own: other). */
export function emailTypeOfLabel(label: string): EmailType {
  const l = label.replace(/^\*\s*/, '').trim().toLowerCase();
  return l === 'home' ? 'home' : l === 'work' ? 'work' : l === 'private' || l === 'personal' ? 'private' : 'other';
}
