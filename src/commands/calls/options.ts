/** The options of `callctl calls get` and `calls summary`, typed before any code loads. */
import { required } from '../parse.js';

export interface CallsGetOptions {
  callId: string;
}

export function callsGetOptions(args: string[]): CallsGetOptions {
  return { callId: required(args, 0, 'callId') };
}

export interface CallsSummaryOptions {
  /** The call field to group by besides the outcome, trimmed; undefined when not given or blank. */
  by: string | undefined;
}

export function callsSummaryOptions(_args: string[], opts: Record<string, unknown>): CallsSummaryOptions {
  return { by: typeof opts.by === 'string' && opts.by.trim() !== '' ? opts.by.trim() : undefined };
}
