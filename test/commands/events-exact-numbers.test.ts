/**
 * JSON numbers reach the service as written (issue 36): `events send --file`, `--properties` and
 * `--prop key:=json` used to send 12345678901234567890 as 12345678901234567000, 1e400 as null
 * and 0.1000000000000000000001 as 0.1. The bodies are read as bytes off the wire by a
 * pass-through proxy in front of the real sandbox, and in the sandbox's own request log.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { recordingProxy } from '../helpers/recording-proxy.js';
import { runCli } from '../helpers/run-cli.js';

const fx = cliSuite();
let env: Record<string, string>;
beforeEach(() => {
  env = fx.env();
});

const NUMBERS = '{"big":12345678901234567890,"huge":1e400,"long":0.1000000000000000000001,"plain":12.5}';

describe('JSON numbers are sent as written', () => {
  it('events send --file: every line body carries its numbers byte for byte', async () => {
    const file = join(fx.tmp.dir, 'n.ndjson');
    writeFileSync(
      file,
      `{"event_type":"n","email":"n1@x.test","properties":${NUMBERS}}\n{"event_type":"n","email":"n2@x.test","properties":{"i":-98765432109876543210.5e-3}}\n`,
    );
    const proxy = await recordingProxy(fx.sb.baseUrl);
    try {
      const res = await runCli(['events', 'send', '--file', file, '--json'], { env: { ...env, SVC_BASE_URL: proxy.baseUrl } });
      expect(res.code, res.stderr).toBe(0);
      expect(proxy.bodies.some((b) => b.includes(`"properties":${NUMBERS}`))).toBe(true);
      expect(proxy.bodies.some((b) => b.includes('"i":-98765432109876543210.5e-3'))).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('events send --properties and --prop key:=json', async () => {
    const props = join(fx.tmp.dir, 'props.json');
    writeFileSync(props, NUMBERS);
    const proxy = await recordingProxy(fx.sb.baseUrl);
    try {
      const args = [
        'events',
        'send',
        '--type',
        'n',
        '--email',
        'p@x.test',
        '--properties',
        `@${props}`,
        '--prop',
        'raw:=[9007199254740993,1e-400]',
      ];
      const res = await runCli([...args, '--json'], { env: { ...env, SVC_BASE_URL: proxy.baseUrl } });
      expect(res.code, res.stderr).toBe(0);
      expect(proxy.bodies).toHaveLength(1);
      const body = proxy.bodies[0] as string;
      for (const n of ['12345678901234567890', '1e400', '0.1000000000000000000001', '[9007199254740993,1e-400]']) expect(body).toContain(n);
      // The sandbox's request log shows the body as it arrived, numbers included.
      const list = (await fetch(`${fx.sb.baseUrl}/_sandbox/requests`).then((r) => r.json())) as {
        data: Array<{ path: string; request: { body: string | null } }>;
      };
      const logged = list.data.find((e) => e.path === '/v1/events')?.request.body ?? '';
      expect(logged).toContain('"big":12345678901234567890');
      expect(logged).toContain('"huge":1e400');
    } finally {
      await proxy.close();
    }
  });
});
