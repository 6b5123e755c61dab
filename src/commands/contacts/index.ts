/** `callctl contacts …`: definitions only; each verb's code loads when it runs. */
import { type Command, Option } from 'commander';
import type { Bind } from '../lazy.js';
import { collect, integer } from '../parse.js';

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

export function registerContacts(program: Command, bind: Bind): void {
  const contacts = program.command('contacts').description('list, show, create, change and erase contacts');

  contacts
    .command('ls')
    .description('list contacts, one page or every page (--all, streamed)')
    .option('--page <n>', 'page to show (default 1)', integer(1))
    .option('--limit <n>', 'contacts per page (default 50)', integer(1))
    .option('--all', 'every page, in order, printed as it arrives')
    .option('--max <n>', 'list up to this many contacts, across pages as needed (with or without --all)', integer(1))
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
    .action(bind(() => import('./ls.js')));

  contacts
    .command('get')
    .description('show one contact')
    .argument('<id>', 'contact id')
    .addHelpText('after', '\nExamples:\n  callctl contacts get ct_123\n  callctl contacts get ct_123 --json')
    .action(bind(() => import('./get.js')));

  fieldFlags(contacts.command('add').description('create a contact (or, with an E.164 phone the service knows, update that contact)'))
    .addHelpText('after', '\nExamples:\n  callctl contacts add --first-name Ada --phone "+44 20 7946 0958" --tag vip\n  callctl contacts add --phone "020 7946 0958" --country GB --email ada@example.com\n  callctl contacts add --data @contact.json --json')
    .action(bind(() => import('./add.js')));

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
    .action(bind(() => import('./edit.js')));

  contacts
    .command('rm')
    .description('erase a contact and all their history (calls, recordings) — irreversible')
    .argument('<id>', 'contact id')
    .addOption(new Option('--confirm', 'required: confirms the irreversible erasure'))
    .addHelpText('after', '\nExamples:\n  callctl contacts rm ct_123\n  callctl contacts rm ct_123 --confirm\n  callctl contacts rm ct_123 --confirm --json')
    .action(bind(() => import('./rm.js')));
}
