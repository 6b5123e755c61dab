/** How a secret key is shown, when it must be: kept apart so the logger loads no HTTP code. */
export const SECRET_KEY_PREFIX = 'sk_live_';

/** `sk_live_…` plus the last 4 characters: the only way a key is ever shown. */
export function maskKey(key: string): string {
  return `${SECRET_KEY_PREFIX}…${key.length > SECRET_KEY_PREFIX.length + 4 ? key.slice(-4) : ''}`;
}
