// Every `--help` ends naming the page of the reference where its command is described
// (docs/development.md, "The documents, and the README's examples"): the page exists and names
// the command. Each group's help as the operator runs it; every verb's through the real parser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { buildProgram } from '../../src/program.js';
import type { Io } from '../../src/deps.js';
import { ROOT, runCli } from '../helpers/cli.js';

/** The page a help names on its last line, and the page's text. */
function reference(help: string, where: string): { page: string; text: string } {
  const last = help.trimEnd().split('\n').pop() ?? '';
  const m = /^Reference: (docs\/\S+\.md)\b/.exec(last);
  assert.ok(m, `${where}: the help's last line names its page, not "${last}"`);
  const page = m[1] as string;
  assert.ok(existsSync(join(ROOT, page)), `${where}: ${page} exists`);
  return { page, text: readFileSync(join(ROOT, page), 'utf8') };
}

test("each command group's --help names its page, and the page describes the group", async () => {
  const root = await runCli(['--help']);
  assert.equal(root.code, 0);
  assert.equal(reference(root.stdout, 'callctl --help').page, 'docs/cli.md');

  const groups = ['import', 'calls', 'contacts', 'jobs', 'login', 'auth', 'config', 'limit', 'completion', 'api', 'sandbox'];
  const results = await Promise.all(groups.map((g) => runCli([g, '--help'])));
  groups.forEach((group, i) => {
    const r = results[i]!;
    assert.equal(r.code, 0, `callctl ${group} --help: ${r.stderr}`);
    const { page, text } = reference(r.stdout, `callctl ${group} --help`);
    assert.ok(page.startsWith('docs/commands/'), `${group}: a page of docs/commands/, not ${page}`);
    assert.ok(text.includes(`callctl ${group}`) || text.includes(`\`${group}`), `${page} names ${group}`);
  });
});

test('every verb\'s --help names the page that describes it', () => {
  let out = '';
  const stdout = { write: (s: string) => ((out += s), true) };
  const io = { stdin: new PassThrough(), stdout, stderr: new PassThrough() } as unknown as Io;
  const program = buildProgram(io, () => async () => undefined);
  const all = (c: Command): Command[] => c.commands.flatMap((x) => [x, ...all(x)]);
  let checked = 0;
  for (const cmd of all(program)) {
    const path: string[] = [];
    for (let c: Command | null = cmd; c?.parent; c = c.parent) path.unshift(c.name());
    out = '';
    cmd.outputHelp();
    const { page, text } = reference(out, `callctl ${path.join(' ')} --help`);
    // `contacts rm` is described as such on its page; a verb on its group's page by group and verb.
    assert.ok(text.includes(path.join(' ')), `${page} describes "${path.join(' ')}"`);
    checked += 1;
  }
  assert.ok(checked >= 30, `${checked} commands checked`);
});
