/**
 * The contact's fields, as the API accepts them on create and update (docs/api.md, Contacts), and
 * the one e-mail rule — in one place for the commands, the import's mapping and validation, and the
 * sandbox. No imports: the dry run and the sandbox load this without the HTTP client.
 */
export const CONTACT_FIELDS = ['firstName', 'lastName', 'email', 'phone', 'address', 'city', 'state', 'zipCode', 'tags', 'status', 'notes'] as const;
export type ContactField = (typeof CONTACT_FIELDS)[number];
/** Every field but `tags` is a string. */
export const STRING_FIELDS = CONTACT_FIELDS.filter((f): f is Exclude<ContactField, 'tags'> => f !== 'tags');

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** A plausible e-mail address: something@domain.tld, no spaces. */
export function isEmail(text: string): boolean {
  return EMAIL.test(text);
}
