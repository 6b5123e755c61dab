/** `callctl limit`'s options, typed before any code loads. */
export interface LimitOptions {
  /** Drop what is remembered instead of showing it. */
  forget: boolean;
}

export function limitOptions(args: string[]): LimitOptions {
  return { forget: args[0] === 'forget' };
}
