import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  define: { __SVC_VERSION__: JSON.stringify(pkg.version) },
  test: {
    include: ['test/**/*.test.ts'],
    // The installed-package test runs on its own: npm run test:package (test/package/vitest.config.ts).
    exclude: [...configDefaults.exclude, 'test/package/**'],
    // 60 s: at a load of 20 on 2 cores, tests that spawn several CLI processes took over 30 s.
    // A test that waits for a state bounds that wait itself; this only ends a hang.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's own default is one worker fewer than cores: on CI's 2 cores, ONE worker, which left a
    // core idle most of the time (a test file runs the CLI and the sandbox in one thread, or waits
    // on a child process, a browser, a rate-limit window). Two workers there; elsewhere the default.
    // docs/performance.md ("The installed package and CI") has the figures.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
