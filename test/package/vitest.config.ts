// `npm run test:package`: the installed-package test alone (test/package/installed.test.ts), kept
// out of `npm test` because its global install compiles better-sqlite3.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/package/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 660_000,
  },
});
