/** `callctl auth status|logout` options, typed before any code loads. */
export interface AuthStatusOptions {
  /** Every stored profile, not only the one in effect. */
  all: boolean;
}

export function authStatusOptions(_args: string[], opts: Record<string, unknown>): AuthStatusOptions {
  return { all: opts.all === true };
}

/** `auth logout` takes no option of its own: the profile is the global `--profile`. */
export type AuthLogoutOptions = Record<string, never>;

export function authLogoutOptions(): AuthLogoutOptions {
  return {};
}
