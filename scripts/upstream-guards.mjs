// The build's guards on upstream code callctl patches at run time: each checks, as the library is
// bundled, that the code the patch was written against is still there — so the day upstream
// changes it, the build fails and says which patch to look at again, rather than a patch silently
// applying to nothing (or a test failing because upstream fixed its bug).

/**
 * unzipper's Parse (which exceljs reads every workbook through) ends itself by hand on 'finish',
 * before its buffered entries are read: src/source/xlsx.ts `endParseAfterDrain` holds that 'end'
 * back. True while parse.js still does it.
 */
export function parseEndsByHand(source) {
  return /self\.on\(\s*'finish'\s*,\s*function\s*\(\)\s*\{\s*self\.emit\(\s*'end'\s*\)\s*;\s*self\.emit\(\s*'close'\s*\)/.test(source);
}

/**
 * An esbuild plugin: fails the build when the bundled unzipper's Parse no longer ends itself by
 * hand (fixed or rewritten upstream: `endParseAfterDrain` may be needless or no longer fit), or
 * when no unzipper Parse is bundled at all (exceljs reads archives some other way: the patch
 * applies to nothing). `needed`: whether this build bundles exceljs.
 */
export function unzipperParseGuard(needed = true) {
  return {
    name: 'unzipper-parse-guard',
    setup(b) {
      let seen = false;
      b.onLoad({ filter: /[/\\]unzipper[/\\]lib[/\\]parse\.js$/ }, async (a) => {
        seen = true;
        const { readFile } = await import('node:fs/promises');
        if (parseEndsByHand(await readFile(a.path, 'utf8'))) return undefined;
        return { errors: [{ text: `${a.path} no longer ends its stream by hand on 'finish': src/source/xlsx.ts endParseAfterDrain was written against that — see whether the patch is still needed, then update scripts/upstream-guards.mjs` }] };
      });
      b.onEnd((result) => {
        if (needed && !seen && result.errors.length === 0) {
          throw new Error('no unzipper Parse was bundled: exceljs reads workbooks some other way, and src/source/xlsx.ts endParseAfterDrain patches nothing — see to it, then update scripts/upstream-guards.mjs');
        }
      });
    },
  };
}
