/**
 * Every file an option reads is capped (issue 26): `--map-file /dev/zero` took 5 GB of memory,
 * `--properties @/dev/zero` and `api --input /dev/zero` over 1.4 GB in 2 s. Now each stops one
 * byte past its limit with exit 2 naming the option, and sends nothing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const s = cliSuite();
const MiB = 1024 * 1024;

describe('bounded reads', () => {
  it('--map-file: 1 MiB at most (/dev/zero and a 1 MiB + 1 file refused, exit 2)', async () => {
    const csv = join(s.tmp.dir, 'orders.csv');
    writeFileSync(csv, 'order_id,total,currency,order_date,email\nA-1,1.00,EUR,2026-01-01,a@example.com\n');
    const started = Date.now();
    const zero = await runCli(['orders', 'import', csv, '--map-file', '/dev/zero', '--dry-run'], { env: s.env() });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--map-file /dev/zero is larger than 1 MiB');
    expect(Date.now() - started).toBeLessThan(5_000);
    const big = join(s.tmp.dir, 'big.json');
    writeFileSync(big, `{"columns":{}}${' '.repeat(MiB)}`);
    const r = await runCli(['orders', 'import', csv, '--map-file', big, '--dry-run'], { env: s.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is larger than 1 MiB');
  });

  it('events send --properties @file and @-: the service body limit (1 MiB)', async () => {
    const zero = await runCli(['events', 'send', '--type', 'viewed', '--email', 'a@example.com', '--properties', '@/dev/zero'], {
      env: s.env(),
    });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain("--properties @/dev/zero is larger than 1 MiB, the service's body limit");
    const stdin = await runCli(['events', 'send', '--type', 'viewed', '--email', 'a@example.com', '--properties', '@-'], {
      env: s.env(),
      stdin: `{"a":"${'x'.repeat(MiB)}"}`,
    });
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toContain('--properties @- is larger than 1 MiB');
    expect((await s.sb.admin.outbox()).length).toBe(0);
  });

  it('api --input FILE and -: the service body limit; a body under it still goes', async () => {
    const zero = await runCli(['api', 'POST', '/v1/contacts', '--input', '/dev/zero'], { env: s.env() });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain("--input /dev/zero is larger than 1 MiB, the service's body limit");
    const piped = await runCli(['api', 'POST', '/v1/contacts', '--input', '-'], { env: s.env(), stdin: Buffer.alloc(MiB + 1, 0x20) });
    expect(piped.code).toBe(2);
    const ok = await runCli(['api', 'POST', '/v1/contacts', '--input', '-'], { env: s.env(), stdin: '{"email":"ok@example.com"}' });
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('orders upsert --input: the same limit', async () => {
    const zero = await runCli(['orders', 'upsert', '--input', '/dev/zero'], { env: s.env() });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--input /dev/zero is larger than 1 MiB');
  });

  it('credentials on stdin (--with-token, --client-secret-stdin, --integration-token-stdin): 64 KiB at most, never echoed', async () => {
    const huge = 's3cr3t'.repeat(11_000); // 66,000 bytes
    const runs: Array<[string[], string]> = [
      [['auth', 'login', '--with-token'], '--with-token'],
      [['auth', 'login', '--client-id', 'app_x', '--client-secret-stdin'], '--client-secret-stdin'],
      [
        [
          'orders',
          'upsert',
          '--order-id',
          'T-1',
          '--total',
          '1.00',
          '--currency',
          'EUR',
          '--order-date',
          '2026-01-01',
          '--email',
          't@example.com',
          '--integration-token-stdin',
        ],
        '--integration-token-stdin',
      ],
    ];
    for (const [argv, flag] of runs) {
      const r = await runCli(argv, { env: s.env(), stdin: huge });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toContain(`${flag}: stdin holds more than 64 KiB, read no further`);
      expect(r.stderr + r.stdout).not.toContain('s3cr3ts3cr3t');
    }
  });

  it('--ids-file: 64 MiB at most (/dev/zero refused, exit 2, nothing sent)', async () => {
    const started = Date.now();
    const r = await runCli(['contacts', 'delete', '--ids-file', '/dev/zero', '--yes'], { env: s.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--ids-file /dev/zero is larger than 64 MiB, read no further');
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
