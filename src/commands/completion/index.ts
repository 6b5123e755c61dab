/**
 * `callctl completion <shell>`: prints a script to source. The script asks `callctl __complete`
 * for the candidates on every TAB (the bin shim answers that without going through commander),
 * so what completes always matches the installed version.
 */
import { Argument, type Command } from 'commander';
import type { Io } from '../../deps.js';
import { SHELLS, script, type Shell } from './scripts.js';

export function registerCompletion(program: Command, io: Io): void {
  program
    .command('completion')
    .description('print a shell completion script to source (bash, zsh, fish, powershell)')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'after',
      '\nExamples:\n  source <(callctl completion bash)        # in ~/.bashrc\n  callctl completion zsh > "${fpath[1]}/_callctl"\n  callctl completion fish > ~/.config/fish/completions/callctl.fish\n  callctl completion powershell | Out-String | Invoke-Expression',
    )
    .action((shell: Shell) => {
      io.stdout.write(script(shell, program.name()));
    });
}
