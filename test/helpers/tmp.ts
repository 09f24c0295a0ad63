/** Temporary folders for the tests (a config folder: SVC_CONFIG_DIR). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

/** A temporary folder for SVC_CONFIG_DIR; call `cleanup()` after the test. */
export function tempConfigDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A temporary config folder made before each test (or once for the file with `'file'`) and
 * removed after it: read `.dir` inside tests and hooks.
 */
export function useTempDir(per: 'test' | 'file' = 'test'): { readonly dir: string } {
  let tmp: { dir: string; cleanup: () => void } | undefined;
  const make = () => {
    tmp = tempConfigDir();
  };
  const remove = () => tmp?.cleanup();
  if (per === 'file') {
    beforeAll(make);
    afterAll(remove);
  } else {
    beforeEach(make);
    afterEach(remove);
  }
  return {
    get dir() {
      if (!tmp) throw new Error('the temporary folder is made before each test: read .dir inside a test or hook');
      return tmp.dir;
    },
  };
}

/** Makes a fresh temporary folder on each call (a test may want several); all removed after each test. */
export function useTempDirs(): () => string {
  const made: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of made.splice(0)) cleanup();
  });
  return () => {
    const t = tempConfigDir();
    made.push(t.cleanup);
    return t.dir;
  };
}
