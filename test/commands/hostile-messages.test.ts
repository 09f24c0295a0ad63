/**
 * The answers issue 26 found wrong or unclear, each corrected: a 1 MB header line, the empty
 * contacts file's hint, a socket as /dev/stdin, --concurrency 1e9, --prop nested 200 levels.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';
import { ensureBuilt, root } from '../helpers/spawn-cli.js';

const s = cliSuite();

describe('messages', () => {
  for (const [name, noun, content, says, never] of [
    [
      'a header line over 1 MiB is named as such, not "the file is empty"',
      'orders',
      `${'a'.repeat(1_100_000)}\n1,2\n`,
      'the header line is longer than 1 MiB',
      'is empty',
    ],
    [
      "an empty file for contacts import shows a contacts header, not the orders'",
      'contacts',
      '',
      'expected a header line such as email,phone,',
      'order_id',
    ],
  ] as const) {
    it(name, async () => {
      const csv = join(s.tmp.dir, 'in.csv');
      writeFileSync(csv, content);
      const r = await runCli([noun, 'import', csv], { env: s.env() });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(says);
      expect(r.stderr).not.toContain(never);
    });
  }

  it('--concurrency is bounded the same way for every bulk verb (1e9 refused, 256 at most)', async () => {
    const csv = join(s.tmp.dir, 'o.csv');
    writeFileSync(csv, 'order_id,total,currency,order_date,email\n');
    for (const argv of [
      ['orders', 'import', csv],
      ['contacts', 'import', csv],
      ['events', 'send', '--file', csv],
    ]) {
      for (const value of ['1e9', '257', '0', '2.5']) {
        const r = await runCli([...argv, '--concurrency', value], { env: s.env() });
        expect(r.code, `${argv.join(' ')} --concurrency ${value}`).toBe(2);
        expect(r.stderr).toContain('--concurrency must be');
      }
    }
  });

  it('a UTF-16 NDJSON file is refused with exit 2 before sending, as docs/events.md says (was exit 4 line by line)', async () => {
    const file = join(s.tmp.dir, 'u16.ndjson');
    writeFileSync(file, Buffer.from('\ufeff{"event_type":"u16","email":"a@example.com"}\n', 'utf16le'));
    const r = await runCli(['events', 'send', '--file', file], { env: s.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is UTF-16LE (it starts with its byte-order mark): NDJSON is UTF-8');
    expect(r.stderr).toContain('--encoding utf-16le');
    const asked = await runCli(['events', 'send', '--file', file, '--encoding', 'utf-16le'], { env: s.env() });
    expect(asked.code, asked.stderr).toBe(0);
  });

  it('--prop nested 200 levels is refused before sending (exit 2), as --properties that deep is', async () => {
    const deep = `${Array.from({ length: 200 }, () => 'a').join('.')}=1`;
    const r = await runCli(['events', 'send', '--type', 'deep', '--email', 'a@example.com', '--prop', deep], { env: s.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--prop is nested more than 63 levels deep');
  });

  it('orders import /dev/stdin with a socket as stdin reads it (was "unexpected error: ENXIO")', async () => {
    await ensureBuilt();
    const path = join(s.tmp.dir, 'in.sock');
    const server = createServer((conn) => {
      conn.end('order_id,total,currency,order_date,email\nSOCK-1,1.00,EUR,2026-01-01,sock@example.com\n');
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      const client = await new Promise<Socket>((resolve) => {
        const sock = connect(path, () => resolve(sock));
      });
      const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), 'orders', 'import', '--live', '/dev/stdin'], {
          env: { PATH: process.env.PATH ?? '', ...s.env() },
          stdio: [client, 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr?.on('data', (d: Buffer) => {
          stderr += d;
        });
        child.on('close', (code) => resolve({ code, stderr }));
      });
      client.destroy();
      expect(result.code, result.stderr).toBe(0);
      expect(await s.sb.admin.order('SOCK-1')).toBeDefined();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
