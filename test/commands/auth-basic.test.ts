/**
 * A client secret with the characters HTTP Basic gets wrong (`+ / : = %`, space, `&`), sent with
 * --basic-auth and in the form body, against the real sandbox's decoding. The sandbox's admin API
 * only issues random base64url secrets, so the test sets a chosen one the way the dashboard would
 * store it: its hash written into the sandbox's database file.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxDb } from '../../src/sandbox/db.js';
import { hashSecret } from '../../src/sandbox/ids.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { type TestSandbox, withSandbox } from '../helpers/sandbox.js';

const SECRET = 'p+q/r:s=t%41 u&v==';
let sb: TestSandbox;
let cfg: { dir: string; cleanup: () => void };
let clientId: string;

beforeAll(async () => {
  cfg = tempConfigDir();
  const dbFile = join(cfg.dir, 'basic-sandbox.db');
  sb = await withSandbox({ db: dbFile });
  const app = await sb.admin.createApp(['contacts_read']);
  clientId = app.client_id;
  // Through SandboxDb, which keeps better-sqlite3's objects from the garbage collector (test/sandbox/native-gc.test.ts).
  const db = new SandboxDb(dbFile);
  const r = db.run('UPDATE apps SET secret_hash = ? WHERE client_id = ?', hashSecret(SECRET), clientId);
  db.close();
  expect(r.changes).toBe(1);
});
afterAll(async () => {
  await sb.close();
  cfg.cleanup();
});

describe('a secret with + / : = % via HTTP Basic', () => {
  for (const style of ['--basic-auth', 'form body'] as const) {
    it(`logs in and renews with the secret in the ${style === '--basic-auth' ? 'Basic header' : 'form body'}`, async () => {
      const env = { SVC_CONFIG_DIR: join(cfg.dir, style === '--basic-auth' ? 'basic' : 'post'), SVC_BASE_URL: sb.baseUrl };
      const extra = style === '--basic-auth' ? ['--basic-auth'] : [];
      const login = await runCli(['auth', 'login', '--client-id', clientId, '--client-secret-stdin', ...extra, '--debug'], {
        stdin: `${SECRET}\n`,
        env,
      });
      expect(login.code, login.stderr).toBe(0);
      expect(login.stderr).toMatch(/\/oauth\/token → 200/);
      await sb.admin.revokeAppTokens(clientId);
      const list = await runCli(['contacts', 'list', '--json', '--debug'], { env });
      expect(list.code, list.stderr).toBe(0);
      expect(list.stderr).toMatch(/token renewed, replaying/);
      for (const out of [login.stdout, login.stderr, list.stdout, list.stderr]) {
        expect(out).not.toContain(SECRET);
        expect(out).not.toContain(encodeURIComponent(SECRET));
      }
    });
  }

  it('a near miss of the secret is refused (the encoding is not lossy)', async () => {
    const env = { SVC_CONFIG_DIR: join(cfg.dir, 'miss'), SVC_BASE_URL: sb.baseUrl };
    const r = await runCli(['auth', 'login', '--client-id', clientId, '--client-secret-stdin', '--basic-auth'], {
      stdin: SECRET.replace('+', ' '),
      env,
    });
    expect(r.code).toBe(3);
  });
});
