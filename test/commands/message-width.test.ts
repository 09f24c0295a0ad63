/**
 * The wrapping rules of messages (issue 36; docs/cli-extensions.md "Output"): into a pipe without
 * COLUMNS a message stays one line (a program may read it); COLUMNS set wraps it to that width
 * between words, even into a pipe, with the hint on a line of its own.
 */
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';

const suite = cliSuite({ reset: false });
const create = ['contacts', 'create', '--email', 'width-rules@example.com'];

describe('message width', () => {
  it('into a pipe: not wrapped; with COLUMNS=50: wrapped to 50 between words, the hint on its own line', async () => {
    expect((await suite.svc(create)).code).toBe(0);
    const piped = await suite.svc(create);
    expect(piped.code).toBe(1);
    const lines = piped.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^error: a contact with this email or phone already exists: ct_\w+ — HTTP 409 \(POST \/v1\/contacts\), request id /,
    );
    expect(lines[1]).toBe('hint: `--if-exists skip` prints it; `--if-exists update` changes it');

    const narrow = await suite.svc(create, { env: { COLUMNS: '50' } });
    const wrapped = narrow.stderr.trimEnd().split('\n');
    expect(wrapped.filter((l) => l.length > 50)).toEqual([]);
    expect(wrapped.length).toBeGreaterThan(3);
    // Nothing lost, no word cut: the lines joined again are the pipe's lines.
    const sameIds = (t: string) => t.replace(/req_\w+/g, 'req_…');
    expect(sameIds(narrow.stderr.replace(/\n {2}/g, ' '))).toBe(sameIds(piped.stderr));
    expect(wrapped.filter((l) => l.startsWith('hint: '))).toHaveLength(1);
  });
});
