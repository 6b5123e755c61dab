/**
 * The name of a call's source field (`--call-source-field`, docs/commands/sandbox.md), checked where the
 * command line is read, before the sandbox's code loads.
 */

/** The call fields a source field may not be named after. */
const CALL_FIELDS = ['id', 'contactId', 'from', 'to', 'direction', 'startedAt', 'durationSec', 'outcome', 'value', 'currency', 'recordingUrl'];

/** Why a name cannot be the calls' source field, or undefined when it can: a plain word, no other call field. */
export function callSourceFieldError(name: string): string | undefined {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name)) return `"${name}" is not a field name (letters, digits and _)`;
  if (CALL_FIELDS.includes(name)) return `"${name}" is already a field of a call (${CALL_FIELDS.join(', ')})`;
  return undefined;
}
