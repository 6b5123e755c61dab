#!/usr/bin/env node
// The reference pipeline of BENCHMARKS.md §3: csv-parse and libphonenumber-js on one core over
// the same file, nothing else — each row's phone (column 3) parsed with the region and validated,
// the count of valid ones printed. `node bench/dryrun-ref.mjs <file> [region]`. An import dry run's
// throughput is reported as a ratio to this one's, measured in the same run (the machine is shared).
import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import { parsePhoneNumberWithError } from 'libphonenumber-js/max';

const [file, region = 'GB'] = process.argv.slice(2);
const phoneAt = 2;
let rows = 0;
let valid = 0;
let header = true;
for await (const record of createReadStream(file).pipe(parse({ relax_column_count: true, skip_empty_lines: true }))) {
  if (header) {
    header = false;
    continue;
  }
  rows += 1;
  try {
    if (parsePhoneNumberWithError(record[phoneAt], { defaultCountry: region }).isValid()) valid += 1;
  } catch {
    // not a number: counted as not valid
  }
}
process.stdout.write(`${JSON.stringify({ rows, valid })}\n`);
