/** `callctl login` (and `callctl auth login`, the same verb): definition only. */
import type { Command } from 'commander';
import { type Bind, typed } from '../lazy.js';
import { loginOptions } from './options.js';

/** The verb's flags, help and action, on `cmd` (`login` or `auth login`). */
export function loginCommand(cmd: Command, bind: Bind, name: string): Command {
  return cmd
    .description('store a secret key (and --base-url) for the profile, in the system keychain, after checking what it may do')
    .option('--no-verify', 'store the key without the check requests')
    .option('--insecure-storage', 'keep the key in the 0600 config file instead of the system keychain')
    .addHelpText(
      'after',
      `
The key is read from a hidden prompt, or from stdin when it is not a terminal. It goes to the
system keychain (macOS Keychain, Windows Credential Manager, the Secret Service on Linux); where
none is reachable, to the config file (0600), and a line says so. Two requests check it: one read,
and one write to a contact that does not exist (it changes nothing) to learn whether it may write.

Examples:
  callctl ${name} --base-url https://api.example.com/api/v1
  echo "$KEY" | callctl ${name} --profile staging --base-url https://staging.example.com/api/v1
  echo "$KEY" | callctl ${name} --insecure-storage --base-url https://api.example.com/api/v1`,
    )
    .action(bind(typed(loginOptions, () => import('./run.js'))));
}

export function registerLogin(program: Command, bind: Bind): void {
  loginCommand(program.command('login'), bind, 'login');
}
