// esbuild plugins of build.mjs (also used by test/unit/phone-bundle.test.ts).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * libphonenumber-js in the bundle, two changes that keep its behaviour (docs/performance.md):
 * - Its own modern source (`source/`, shipped in the package) instead of the Babel build (`es6/`)
 *   that its entry points re-export: the same code without Babel's helpers (`_objectSpread2` for
 *   every options object, `_classCallCheck`, descriptor objects), which made a phone number's
 *   parse allocate some seven times as much (scavenges in 600,000 parses: 1,185 → 160).
 * - `matchesEntirely` builds `new RegExp('^(?:' + pattern + ')$')` on every call: a third of the
 *   CPU of a parse. Here each pattern's RegExp is built once and kept (metadata patterns only, a
 *   few thousand at most; no `g` or `y` flag, so `test` keeps no state between calls), as the
 *   other ports of libphonenumber cache theirs.
 * test/e2e/cli.test.ts checks the bundle has both; test/unit/phone-bundle.test.ts that a bundle
 * built with it normalises phone numbers exactly as the package does.
 */
export const phoneLibrary = {
  name: 'libphonenumber-source-and-kept-patterns',
  setup(b) {
    b.onResolve({ filter: /(^|\/)es6\// }, (args) => {
      if (!/[\\/]libphonenumber-js[\\/]/.test(args.importer)) return undefined;
      const modern = resolve(args.resolveDir, args.path).replace(/([\\/])es6([\\/])/, '$1source$2');
      return existsSync(modern) ? { path: modern } : undefined;
    });
    b.onLoad({ filter: /libphonenumber-js[\\/](?:source|es6)[\\/]helpers[\\/]matchesEntirely\.js$/ }, () => ({
      loader: 'js',
      contents: `const wholePatterns = new Map();
export default function matchesEntirely(text, regularExpressionText) {
  let wholePattern = wholePatterns.get(regularExpressionText);
  if (wholePattern === undefined) {
    wholePattern = new RegExp('^(?:' + regularExpressionText + ')$');
    wholePatterns.set(regularExpressionText, wholePattern);
  }
  return wholePattern.test(text || '');
}
`,
    }));
  },
};
