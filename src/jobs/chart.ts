/**
 * `jobs show`'s picture in the terminal: requests the service admitted per second over the job's
 * running time (asciichart's line), the limit the limiter held (dotted, over the same axis), and
 * below the axis a row of marks — `×` where 429s came, `▒` where the job stood paused after them,
 * `┊` where a later run (a resume) begins — then the time.
 */
import { plot } from 'asciichart';
import { type Bucket, type Column, resample } from '../bulk/timeline.js';

/** Seconds for a person: 4.2 s, 45 s, 12 min, 3.5 h. */
export function duration(seconds: number): string {
  if (seconds < 10) return `${(Math.round(seconds * 10) / 10).toString()} s`;
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** The mark under one column. */
function mark(c: Column): string {
  if (c.resumed) return '┊';
  if (c.throttled > 0) return '×';
  if (c.paused >= 0.5) return '▒';
  return ' ';
}

/**
 * The chart's top: the admitted rate's peak or the limit the job ended with, whichever is higher,
 * and a little room. The pace a limiter tries while it has not met a limit yet can be many times
 * the real one: above the top it is drawn at the top.
 */
export function chartTop(columns: Column[]): number {
  const last = [...columns].reverse().find((c) => c.pace !== undefined)?.pace ?? 0;
  return Math.max(1, ...columns.map((c) => c.rate), last) * 1.15;
}

const LIMIT_SYMBOLS: [string, string, string, string, string, string, string, string, string, string] = ['┼', '┤', '┄', '┄', '┄', '┄', '┄', '┄', '┄', '┊'];
const YELLOW = '\u001b[33m';
const RED = '\u001b[31m';
const RESET = '\u001b[0m';

/** The chart's lines for a terminal `width` wide; none when the job recorded no timeline. */
export function terminalChart(buckets: Bucket[], o: { width: number; color: boolean; height?: number }): string[] {
  const labelWidth = 7;
  const room = Math.max(10, o.width - labelWidth - 3);
  const { columns, seconds } = resample(buckets, room);
  if (columns.length === 0) return [];
  const rates = columns.map((c) => c.rate);
  const limits = columns.map((c) => c.pace ?? Number.NaN);
  const top = chartTop(columns);
  const config = { height: o.height ?? 8, min: 0, max: top, format: (x: number) => (top < 10 ? x.toFixed(1) : Math.round(x).toString()).padStart(labelWidth - 1) };
  // asciichart needs two points for a line: a one-column job is drawn twice as wide.
  const series = (s: number[]) => (s.length === 1 ? [s[0] as number, s[0] as number] : s);
  const admitted = plot(series(rates), config).split('\n');
  const hasLimit = limits.some((n) => Number.isFinite(n));
  const limit = hasLimit ? plot(series(limits.map((n) => (Number.isFinite(n) ? Math.min(n, top) : 0))), { ...config, symbols: LIMIT_SYMBOLS }).split('\n') : [];
  const axis = Math.max(0, (admitted[0] ?? '').search(/[┤┼]/));
  const lines = admitted.map((line, row) => {
    const over = limit[row];
    if (!over) return line;
    let out = '';
    for (let i = 0; i < Math.max(line.length, over.length); i++) {
      const a = line[i] ?? ' ';
      const b = over[i] ?? ' ';
      // The limit shows where the admitted line is not, and only where it was known.
      const known = i > axis && Number.isFinite(limits[Math.min(limits.length - 1, i - axis)] as number);
      out += a === ' ' && b !== ' ' && known ? (o.color ? `${YELLOW}${b}${RESET}` : b) : a;
    }
    return out;
  });
  const marks = columns.map(mark).join('');
  const coloured = o.color ? marks.replace(/×+/g, (m) => `${RED}${m}${RESET}`) : marks;
  const end = duration(seconds);
  const legend = `admitted requests/s ─${hasLimit ? ', limit as learnt ┄' : ''}; × 429, ▒ paused${columns.some((c) => c.resumed) ? ', ┊ resumed' : ''}`;
  return [legend, ...lines, `${' '.repeat(axis)}${coloured}`, `${' '.repeat(axis)}0 s${end.padStart(Math.max(end.length + 1, columns.length - 3))}`];
}
