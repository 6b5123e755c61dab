/** `callctl auth login|status|logout`: definitions only; each verb's code loads when it runs. */
import type { Command } from 'commander';
import { type Bind, typed } from '../lazy.js';
import { loginCommand } from '../login/index.js';
import { authLogoutOptions, authStatusOptions } from './options.js';

export function registerAuth(program: Command, bind: Bind): void {
  const auth = program.command('auth').description('the secret key of a profile: log in, see where it is and what it may do, log out');

  loginCommand(auth.command('login'), bind, 'auth login');

  auth
    .command('status')
    .description('per profile: base URL, where the key lives, the key masked, whether it works and what it may do')
    .option('--all', 'every stored profile, not only the one in effect')
    .addHelpText(
      'after',
      `
Two requests per profile: one read (GET /contacts?limit=1) and one write to a contact that does
not exist, which changes nothing. Exit 3 when a key is refused or missing, 1 when the service
cannot be reached.

Examples:
  callctl auth status
  callctl auth status --profile staging --json
  callctl auth status --all`,
    )
    .action(bind(typed(authStatusOptions, () => import('./status.js'))));

  auth
    .command('logout')
    .description('remove the profile\'s key from the system keychain and from the config file')
    .addHelpText('after', '\nThe profile\'s other settings (base URL, country…) stay.\n\nExamples:\n  callctl auth logout\n  callctl auth logout --profile staging')
    .action(bind(typed(authLogoutOptions, () => import('./logout.js'))));
}
