/**
 * A closed sandbox left to the garbage collector must not take the process down. Built against
 * the headers of Node 24.19 or later, better-sqlite3 12 aborts the process when the collector frees
 * one of its objects outside JavaScript (nodejs/node#65446), so SandboxDb keeps them all reachable:
 * without that, this test fails on such a Node (.ci/run runs the suite on Node 20, 22 and 24).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from '../helpers/spawn-cli.js';

beforeAll(ensureBuilt);

// Each round leaves a closed sandbox behind and allocates enough to start incremental marking,
// which V8 finishes in a task of its own while the loop idles: outside JavaScript, where an
// affected build aborts (every run of this script without the fix, on Node 24.21).
const script = (sandboxUrl: string) => `
const { startSandbox } = await import(${JSON.stringify(sandboxUrl)});
for (let round = 0; round < 5; round++) {
  await (await startSandbox()).close();
  let junk = [];
  for (let i = 0; i < 1e6; i++) junk.push({ i });
  junk = undefined;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
console.log('still alive');
`;

describe('a closed sandbox and the garbage collector', () => {
  it('leaves the process running and ending normally', () => {
    const sandboxUrl = pathToFileURL(join(root, 'dist', 'sandbox.js')).href;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script(sandboxUrl)], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
      timeout: 20_000,
    });
    expect(r.stderr).toBe('');
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('still alive\n');
  });
});

describe('every better-sqlite3 statement of src/ stays reachable', () => {
  // On Node 20 and 22 the script above passes with or without keepAlive: this check fails on any
  // of them as soon as a statement is created where keepAlive does not hold it.
  it('is prepared in SandboxDb and pushed onto keepAlive; no .pragma() (a statement thrown away)', () => {
    const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const escapes: string[] = [];
    for (const file of files) {
      const lines = readFileSync(join(root, 'src', file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (/\.pragma\(/.test(line)) escapes.push(`${file}:${i + 1}: ${line.trim()}`);
        if (/\.prepare\(/.test(line) && !lines.slice(i, i + 4).some((l) => l.includes('keepAlive.push(')))
          escapes.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(escapes).toEqual([]);
  });
});
