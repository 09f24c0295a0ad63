/** svc sandbox snapshot save|restore|list|delete, in-process against a sandbox on port 0 over real HTTP. */
import { beforeAll, describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';
import { http } from '../helpers/sandbox.js';

const fx = cliSuite({ reset: false, config: 'file' });

let env: Record<string, string>;
beforeAll(() => {
  env = fx.env();
});

const emails = async () => {
  const r = await runCli(['contacts', 'list', '--json'], { env });
  return (JSON.parse(r.stdout) as { email: string }[]).map((c) => c.email).sort();
};

describe('svc sandbox snapshot', () => {
  it('save, then restore between test cases: the state saved comes back, and the snapshot is listed until deleted', async () => {
    await http(fx.sb.baseUrl, 'POST', '/v1/contacts', { token: fx.token, json: { email: 'seed@example.com' } });
    const saved = await runCli(['sandbox', 'snapshot', 'save', 'seeded'], { env });
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stderr).toContain('snapshot seeded saved: 1 contacts');
    await http(fx.sb.baseUrl, 'POST', '/v1/contacts', { token: fx.token, json: { email: 'case1@example.com' } });
    expect(await emails()).toEqual(['case1@example.com', 'seed@example.com']);
    const restored = await runCli(['sandbox', 'snapshot', 'restore', 'seeded', '--json'], { env });
    expect(restored.code, restored.stderr).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ name: 'seeded', restored: true, contacts: 1 });
    expect(await emails()).toEqual(['seed@example.com']);
    const listed = await runCli(['sandbox', 'snapshot', 'list', '--json'], { env });
    expect(JSON.parse(listed.stdout).map((s: { name: string }) => s.name)).toEqual(['seeded']);
    const table = await runCli(['sandbox', 'snapshot', 'list'], { env, tty: true });
    expect(table.stdout).toMatch(/NAME\s+CREATED\s+CONTACTS/);
    expect((await runCli(['sandbox', 'snapshot', 'delete', 'seeded'], { env })).code).toBe(0);
    expect(JSON.parse((await runCli(['sandbox', 'snapshot', 'list', '--json'], { env })).stdout)).toEqual([]);
  });

  it('an unknown snapshot exits 1 naming it; a bad name is a usage error (exit 2)', async () => {
    const missing = await runCli(['sandbox', 'snapshot', 'restore', 'nope'], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no snapshot named nope');
    const bad = await runCli(['sandbox', 'snapshot', 'save', '../x'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('snapshot name');
  });
});
