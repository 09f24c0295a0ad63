/**
 * The progress line of the --ids-file verbs: the same line as every bulk verb, counted in ids,
 * with the share done and the time left (the whole list is read first), redrawn on a terminal
 * (tmux) and gone before the summary. Skipped without tmux or a build.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { progressLine } from '../../src/io/progress.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { type TestSandbox, withSandbox } from '../helpers/sandbox.js';
import { root } from '../helpers/spawn-cli.js';
import { exitOf, hasTmux, killSession, startSvc, waitFor } from '../helpers/tmux.js';

const built = existsSync(join(root, 'dist', 'main.js'));

describe('the progress line of an id list', () => {
  it('shows the share done and the time left from the ids, all read before the run', () => {
    const src = {
      done: () => 25,
      resumed: () => 0,
      bytesRead: () => 0,
      rateLimited: () => 0,
      rowsRead: () => 100,
      inputDone: () => true,
      counts: () => '25 deleted, 0 not found, 0 rejected, 0 failed',
    };
    expect(progressLine(src, 'ids', 5, undefined)).toBe('25 ids (5.0/s, 25%, ETA 15 s): 25 deleted, 0 not found, 0 rejected, 0 failed');
  });
});

let sb: TestSandbox;
let cfg: { dir: string; cleanup: () => void };
beforeAll(async () => {
  sb = await withSandbox();
  cfg = tempConfigDir();
});
afterAll(async () => {
  cfg.cleanup();
  await sb.close();
});

describe.skipIf(!built || !hasTmux)('--ids-file on a terminal', () => {
  it('unsubscribe and delete redraw one progress line in ids, then print the summary', async () => {
    const env = { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: await sb.tokenWithAllScopes(), CI: '', NO_COLOR: '1' };
    const csv = join(cfg.dir, 'people.csv');
    writeFileSync(csv, `email\n${Array.from({ length: 60 }, (_, i) => `p${i}@example.com`).join('\n')}\n`);
    expect((await runCli(['contacts', 'import', csv, '--json'], { env })).code).toBe(0);
    const ids = (JSON.parse((await runCli(['contacts', 'list', '--all', '--json'], { env })).stdout) as Array<{ id: string }>).map(
      (c) => c.id,
    );
    const file = join(cfg.dir, 'ids.txt');
    writeFileSync(file, `${ids.join('\n')}\n`);
    // 60 ids four at a time at 200 ms each: about 3 s of progress line to see, even on a loaded
    // machine (at 60 ms the line lived under a second).
    await sb.admin.setFaults({ latency_ms: 200 });
    for (const [verb, word] of [
      ['unsubscribe', 'unsubscribed'],
      ['delete', 'deleted'],
    ] as const) {
      const session = startSvc(['contacts', verb, '--ids-file', file, ...(verb === 'delete' ? ['--yes'] : [])], env);
      try {
        const line = new RegExp(String.raw`(\d+) ids \([\d.]+/s, \d+%, ETA [^)]+\): (\d+) ${word}, 0 not found, 0 rejected, 0 failed`);
        const seen = await waitFor(session, line);
        const [, done] = line.exec(seen) as RegExpExecArray;
        expect(Number(done)).toBeLessThan(60);
        const end = await exitOf(session, 30_000);
        expect(end.code, end.screen).toBe(0);
        expect(end.screen).toContain(`rows 60  ${word} 60  not_found 0  rejected 0  failed 0`);
        // The progress line was redrawn in place and erased: it is not left above the summary.
        expect(end.screen).not.toMatch(line);
      } finally {
        killSession(session);
      }
    }
    await sb.admin.setFaults({});
  }, 60_000);
});
