/**
 * `events send --file` behind a captive portal answering 200 HTML to everything (issue 36): the
 * lines are `unmatched` (their answer is not the service's), exit 4 with a plain count, never
 * `accepted` with exit 0; they are not resent (events are not idempotent).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Cleanup, rawServer } from '../helpers/raw-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/tmp.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const tmp = useTempDir();

describe('events send --file behind a captive portal', () => {
  it('every line unmatched, exit 4, each sent once', async () => {
    const page = '<html><body>Sign in to the guest Wi-Fi</body></html>';
    const s = await rawServer(
      () => [`HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${page.length}\r\n\r\n${page}`],
      cleanups,
    );
    const file = join(tmp.dir, 'events.ndjson');
    writeFileSync(
      file,
      '{"event_type":"e","email":"a@example.com"}\n{"event_type":"e","email":"b@example.com"}\n{"event_type":"e","email":"c@example.com"}\n',
    );
    const env = { SVC_CONFIG_DIR: tmp.dir, SVC_DATA_DIR: tmp.dir, SVC_BASE_URL: s.origin, SVC_TOKEN: 'tok_portal' };
    const r = await runCli(['events', 'send', '--file', file, '--json', '--concurrency', '1'], { env });
    expect(r.code, r.stderr).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 3, accepted: 0, unconfirmed: 0, unmatched: 3, unmatched_lines: [1, 2, 3] });
    expect(r.stderr).toContain('0 line(s) rejected, 0 failed and 3 unmatched out of 3');
    expect(r.stderr).toContain('whether it was stored is unknown; they were not resent');
    expect(s.requests()).toBe(3);
  });
});
