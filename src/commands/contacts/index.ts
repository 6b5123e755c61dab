/** `callctl contacts …`: definitions only; each verb's code loads when it runs. */
import { type Command, Option } from 'commander';
import { type Bind, typed } from '../lazy.js';
import { addOptions, editOptions } from './fields-options.js';
import { contactsLsOptions } from './ls-options.js';
import { contactsGetOptions, dupesOptions, findOptions } from './options.js';
import { rmOptions } from './rm-options.js';
import { listFlags } from '../list-options.js';
import { ENCODINGS } from '../file-options.js';
import { collect } from '../parse.js';

/** The field flags shared by `add` and `edit`. */
function fieldFlags(cmd: Command): Command {
  return cmd
    .option('--first-name <text>', 'first name')
    .option('--last-name <text>', 'last name')
    .option('--email <address>', 'e-mail address')
    .option('--phone <number>', 'phone; normalised to E.164 (the matching key) before sending')
    .option('--address <text>', 'street address')
    .option('--city <text>', 'city')
    .option('--state <text>', 'region or state')
    .option('--zip-code <code>', 'postal code')
    .option('--status <text>', 'contact status')
    .option('--notes <text>', 'free text')
    .option('--tag <tag>', 'a tag (repeat for several); on edit, the tags become exactly these', collect)
    .option('--country <CC>', 'region (ISO 3166 alpha-2) for a national-format --phone')
    .option('--data <json|@file>', 'fields as a JSON object, inline or from a file');
}

/** The `contacts` group; its verbs only when `verbs` (the line names the group, see program.ts). */
export function registerContacts(program: Command, bind: Bind, verbs = true): void {
  const contacts = program.command('contacts').description('list, show, create, change and erase contacts');
  if (!verbs) return;

  listFlags(contacts.command('ls').description('list contacts, one page or every page (--all, streamed)'), 'contacts')
    .option('--tag <tag>', 'only contacts with this tag (repeat: with every one of them); reads every page', collect)
    .option('--status <status>', 'only contacts with this status; reads every page')
    .addHelpText(
      'after',
      `
The API lists contacts without filters: with --tag or --status every page is read and the
matching contacts are printed as each page arrives (--max stops early). Tags and status are
compared ignoring case.

Examples:
  callctl contacts ls
  callctl contacts ls --max 5
  callctl contacts ls --all --format csv > contacts.csv
  callctl contacts ls --tag vip --status customer
  callctl contacts ls --all --max 500 --json | jq '.[].phone'`,
    )
    .action(bind(typed(contactsLsOptions, () => import('./ls.js'))));

  contacts
    .command('get')
    .description('show one contact')
    .argument('<id>', 'contact id')
    .addHelpText('after', '\nExamples:\n  callctl contacts get ct_123\n  callctl contacts get ct_123 --json')
    .action(bind(typed(contactsGetOptions, () => import('./get.js'))));

  fieldFlags(contacts.command('add').description('create a contact (or, with an E.164 phone the service knows, update that contact)'))
    .addHelpText('after', '\nExamples:\n  callctl contacts add --first-name Ada --phone "+44 20 7946 0958" --tag vip\n  callctl contacts add --phone "020 7946 0958" --country GB --email ada@example.com\n  callctl contacts add --data @contact.json --json')
    .action(bind(typed(addOptions, () => import('./add.js'))));

  fieldFlags(contacts.command('edit').description('change only the given fields of a contact').argument('<id>', 'contact id'))
    .option('--add-tag <tag>', 'add a tag and keep the others (repeatable)', collect)
    .option('--remove-tag <tag>', 'remove a tag and keep the others (repeatable)', collect)
    .addHelpText(
      'after',
      `
--tag sets exactly the tags given. --add-tag and --remove-tag read the contact first, then PATCH
its whole tag list with the change (the API replaces the list): a change made by someone else in
between is overwritten.

Examples:
  callctl contacts edit ct_123 --status customer
  callctl contacts edit ct_123 --add-tag vip --remove-tag cold
  callctl contacts edit ct_123 --tag vip --tag 2026 --json
  callctl contacts edit ct_123 --data '{"notes":"called back"}'`,
    )
    .action(bind(typed(editOptions, () => import('./edit.js'))));

  contacts
    .command('rm')
    .description('erase contacts and all their history (calls, recordings) — irreversible: one id, every contact that is a phone\'s or e-mail\'s person, or a file of erasure requests')
    .argument('[id]', 'contact id')
    .addOption(new Option('--confirm', 'required: confirms the irreversible erasure'))
    .option('--phone <number>', 'erase every contact with this number, compared by its digits as contacts find --phone (national-format twins and invalid numbers included)')
    .option('--email <address>', 'erase every contact with this e-mail (case and surrounding spaces ignored)')
    .option('--from <file>', 'a file of erasure requests: an id, phone or e-mail a line, or a CSV or workbook (every sheet) with id, phone or e-mail columns (- for stdin)')
    .option('--country <CC>', 'region for national-format phones (default: the profile\'s country)')
    .option('--dry-run', 'resolve exactly as the real run and print what would be erased, and which of your own files hold them; send no DELETE')
    .option('--receipts <path>', 'append-only JSON lines, one per contact erased (default <file>.erasures.jsonl, or erasures/<date>.jsonl in the config folder)')
    .option('--purge-local', 'also remove the people\'s rows from the rejects and changes files callctl wrote (other rows kept byte for byte)')
    .addOption(new Option('--resume', 'with --from: continue the unfinished erasure of this file').conflicts('restart'))
    .addOption(new Option('--restart', 'with --from: ignore the journal of an earlier run').conflicts('resume'))
    .addOption(new Option('--encoding <name>', 'with --from: file encoding (default: detected)').choices(ENCODINGS))
    .addHelpText(
      'after',
      `
Every erasure leaves receipts — one JSON line per contact erased, no phone, name or e-mail — and
names the rejects and changes files callctl wrote that still hold the person; --purge-local
removes those rows and records the files cleaned in the receipts.

Examples:
  callctl contacts rm ct_123
  callctl contacts rm ct_123 --confirm --json
  callctl contacts rm --phone "+44 7911 123456" --country GB --confirm
  callctl contacts rm --email ada@example.com --dry-run
  callctl contacts rm --from requests.csv --dry-run
  callctl contacts rm --from requests.csv --confirm --purge-local --receipts erasures.jsonl`,
    )
    .action(bind(typed(rmOptions, () => import('./rm.js'))));

  contacts
    .command('find')
    .description('every contact that is this person: by phone (compared by its digits, national-format twins and invalid numbers included), e-mail or name — reads every page')
    .option('--phone <number>', 'the phone, in any format (at least six digits)')
    .option('--email <address>', 'the e-mail (case and surrounding spaces ignored)')
    .option('--name <text>', 'first and last name (case and accents ignored: "zoe muller" finds Zoë Müller)')
    .option('--country <CC>', 'region for national-format phones (default: the profile\'s country)')
    .addHelpText('after', '\nExamples:\n  callctl contacts find --phone "+44 7911 123456" --country GB\n  callctl contacts find --phone "07700 900123" --country GB --json\n  callctl contacts find --email Ada@Example.com --json\n  callctl contacts find --name "zoe muller"')
    .action(bind(typed(findOptions, () => import('./find.js'))));

  contacts
    .command('dupes')
    .description('contacts whose phones are one number (compared by digits, valid or not), and phones stored in national format — reads every page')
    .option('--country <CC>', 'region for national-format phones (default: the profile\'s country)')
    .option('--fix', 'rewrite a national-format phone to E.164 where it is a valid number and no other contact has it (the rest are listed for a person)')
    .addHelpText('after', '\nExamples:\n  callctl contacts dupes --country GB\n  callctl contacts dupes --country GB --fix --json')
    .action(bind(typed(dupesOptions, () => import('./dupes.js'))));
}
