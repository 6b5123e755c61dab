/** `callctl import`: definition only; the pipeline loads when it runs. */
import { type Command, Option } from 'commander';
import { type Bind, typed } from '../lazy.js';
import { importOptions } from './options.js';
import { fileJobOptions } from '../file-options.js';
import { collect } from '../parse.js';
import { undoCommand } from '../jobs/index.js';

/**
 * `words`: the command line's words. In `import undo <job> --dry-run`, commander would give
 * `--dry-run` to `import` (a parent parses its own flags before its subcommand's): with `undo`
 * after `import`, the import's own flags and action are not defined, and the flags are undo's.
 */
export function registerImport(program: Command, bind: Bind, words?: readonly string[]): void {
  const cmd = program.command('import').helpCommand(false);
  if (words !== undefined && words[words.indexOf('import') + 1] === 'undo') {
    cmd.description('import a lead list — and undo an import');
    undoCommand(cmd.command('undo'), bind, 'import');
    return;
  }
  fileJobOptions(cmd, { job: 'import', dryRun: 'parse, map, normalise, validate and report; send nothing (with a key: which rows are new, which change whom)' })
    .description('import a lead list (CSV, .xlsx or .ods) — one request per row, at the rate limit, resumable')
    .argument('<file>', 'CSV file or workbook (.xlsx, .ods), or - for stdin (CSV)')
    .option('--country <CC>', 'region (ISO 3166 alpha-2) for national-format phones of rows without a country column of their own (default: the profile\'s country)')
    .option('--map <Header=field>', 'map a column to a contact field (repeatable); overrides the automatic mapping', collect)
    .option('--check-existing', 'list the contacts first and report each row as new or matching, with the fields it would change (<file>.changes.csv); a dry run with a key always does')
    .addOption(new Option('--existing <mode>', 'rows whose phone an existing contact has: merge (update it, the service\'s way) or skip (send only new people)').choices(['merge', 'skip']).default('merge'))
    .option('--allow-no-phone', 'import rows without a phone (they cannot be matched: a re-run can duplicate them)')
    .option('--keep-other-phones', 'a row\'s phone numbers besides the one sent (chosen by type: mobile first) are added to its notes, not dropped')
    .option('--sheet <name|all>', 'for a workbook (.xlsx, .ods): the worksheet to read, by name or number (1 = the first tab; default: the first; other sheets holding rows are named on stderr), or all: every sheet whose header maps, each reject naming its sheet')
    .addHelpText(
      'after',
      '\nExamples:\n  callctl import leads.csv --country US\n  callctl import export.csv --dry-run --map "Cell=phone"\n  callctl import leads.csv --resume --json\n  callctl import leads.csv --dry-run            # with a key: which rows are new, which change whom\n  callctl import leads.csv --dry-run --format csv > as-sent.csv\n  callctl import leads.csv --existing skip      # create-only: existing contacts untouched\n  callctl import leads.xlsx --sheet "March leads" --country GB\n  callctl import book.xlsx --sheet all --country GB\n  callctl import google.csv --keep-other-phones # the numbers not sent go into the notes',
    )
    .action(bind(typed(importOptions, () => import('./run.js'))));
  // `import undo <job>`: a file named "undo" is imported as ./undo.
  undoCommand(cmd.command('undo'), bind, 'import');
}
