/** `callctl login`'s (and `auth login`'s) options, typed before any code loads: the key itself never comes from a flag (docs/commands/auth.md, "login"). */
export interface LoginOptions {
  /** Check the key with one request before storing it (`--no-verify` skips it). */
  verify: boolean;
  /** Keep the key in the 0600 config file rather than the system keychain. */
  insecureStorage: boolean;
}

export function loginOptions(_args: string[], opts: Record<string, unknown>): LoginOptions {
  return { verify: opts.verify !== false, insecureStorage: opts.insecureStorage === true };
}
