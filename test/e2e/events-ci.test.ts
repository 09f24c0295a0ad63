/**
 * docs/ci.md's GitLab CI script, run line by line with bash as a runner would: the sandbox in the
 * background, a test event, and the jq assertion on the flow_run outbox. Keeps the doc honest.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../helpers/tmp.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The `script:` entries of the GitLab job in docs/ci.md. */
function gitlabScript(): string[] {
  const doc = readFileSync(join(root, 'docs', 'ci.md'), 'utf8');
  const block = doc.slice(doc.indexOf('## GitLab CI'));
  const lines = block.split('\n');
  const start = lines.findIndex((l) => l.trim() === 'script:');
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('    - ')) break;
    out.push(line.slice(6));
  }
  return out;
}

const tmp = useTempDir();

describe('docs/ci.md', () => {
  it('the GitLab CI script runs green: the test event reaches the Flow exactly once', async () => {
    const script = gitlabScript();
    expect(script.length).toBeGreaterThanOrEqual(6);
    expect(script.join('\n')).toContain('svc events send --type ci_check');
    // `svc` on the PATH, as after `npm link`.
    const binDir = join(tmp.dir, 'bin');
    mkdirSync(binDir);
    writeFileSync(join(binDir, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'bin', 'svc.js')}" "$@"\n`);
    chmodSync(join(binDir, 'svc'), 0o755);
    const job = ['set -eu', "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT", ...script, 'echo "sent $id"'].join('\n');
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        'bash',
        ['-c', job],
        {
          cwd: tmp.dir,
          timeout: 30_000,
          env: {
            PATH: `${binDir}:${process.env.PATH ?? ''}`,
            HOME: tmp.dir,
            SVC_CONFIG_DIR: join(tmp.dir, 'config'),
            CI: 'true',
            CI_PIPELINE_ID: '4242',
          },
        },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^sent ev_\w+$/m);
    // jq -e printed `true` for the assertion on the outbox.
    expect(result.stdout).toMatch(/^true$/m);
  });
});
