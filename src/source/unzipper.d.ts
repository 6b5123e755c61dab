// unzipper (exceljs's zip reader) ships no types: only what xlsx.ts touches.
declare module 'unzipper' {
  import type { Duplex } from 'node:stream';
  const unzipper: { Parse: (opts?: unknown) => Duplex };
  export default unzipper;
}
