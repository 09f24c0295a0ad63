/**
 * `svc contacts list` at a real terminal (tmux): the table fits 80 and 120 columns with long data
 * (no row wraps: capture-pane -J would join a wrapped row into one line wider than the pane), and
 * long output goes through the pager on a terminal only — quitting it early ends svc with 0, and
 * the terminal is left as it was. Skipped without tmux or a build.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { describeTty, exitOf, joinedLines, keys, killSession, screen, startShell, svcLine, TTY_ENV, waitFor } from '../helpers/tmux.js';

const suite = cliSuite({ reset: false, config: 'file' });
let env: Record<string, string>;
let ids: string[];
const CONTACTS = 24;

beforeAll(async () => {
  env = suite.env(TTY_ENV);
  ids = [];
  for (let i = 0; i < CONTACTS; i++) {
    const r = await suite.svc([
      'contacts',
      'create',
      '--email',
      `someone.with.a.really.long.address.number.${i}@a-long-company-domain.example.com`,
      '--phone',
      `+1415555${String(2000 + i)}`,
      '--sms-consent',
      'single_opt_in',
      '--json',
    ]);
    if (r.code !== 0) throw new Error(r.stderr);
    ids.push(JSON.parse(r.stdout).id);
  }
}, 60_000);

/** Every line of the pane, wrapped lines joined back (-J), trailing blank lines dropped. */
function joinedScreen(session: string): string[] {
  return joinedLines(session).join('\n').trimEnd().split('\n');
}

describeTty('contacts list in a real terminal (tmux)', { timeout: 60_000 }, () => {
  for (const cols of [80, 120]) {
    it(`fits ${cols} columns: no line wider than the pane, one line per contact`, async () => {
      const session = startShell(svcLine(['contacts', 'list', '--no-pager']), env, { cols, rows: CONTACTS + 6 });
      try {
        const end = await exitOf(session);
        expect(end.code, end.screen).toBe(0);
        const lines = joinedScreen(session);
        for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(cols);
        const table = lines.slice(
          0,
          lines.findIndex((l) => l.startsWith('EXIT=')),
        );
        expect(table).toHaveLength(CONTACTS + 1);
        expect(table[0]).toMatch(/^ID\s+EMAIL\s/);
        // Each contact once, by its id: whole at 120 columns, cut in the middle (both ends kept) at 80.
        const shows = (l: string, id: string) =>
          cols >= 120 ? l.startsWith(`${id}  `) : l.startsWith(id.slice(0, 6)) && (l.split('  ')[0] as string).endsWith(id.slice(-4));
        for (const id of ids) expect(table.filter((l) => shows(l, id))).toHaveLength(1);
        expect(table[1]).toContain('…');
      } finally {
        killSession(session);
      }
    });
  }

  it('goes through less -FRX when longer than the screen; q ends it with exit 0 and a sane terminal', async () => {
    const line = `${svcLine(['contacts', 'list'])}; echo "EXIT=$?"; stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo -e -icanon -e -echo | tr '\\n' ' '; echo`;
    const session = startShell(line, { ...env, PAGER: 'less -FRX', LESS: '' }, { cols: 120, rows: 10 });
    try {
      const paged = await waitFor(session, /^:\s*$/m);
      expect(paged).not.toMatch(/EXIT=/);
      keys(session, 'q');
      const after = await waitFor(session, /EXIT=\d+[\s\S]*icanon/);
      expect(after).toMatch(/EXIT=0/);
      expect(after).toMatch(/(^|\s)icanon echo/m);
      expect(after).not.toMatch(/error/);
    } finally {
      killSession(session);
    }
  });

  it('the closing note comes after the rows the pager showed, not before them', async () => {
    // A pager slow to show what it got (as less can be on a loaded machine): the note must wait for it.
    const session = startShell(
      svcLine(['contacts', 'list', '--limit', '5']),
      { ...env, PAGER: "sh -c 'sleep 0.5; cat'" },
      { cols: 120, rows: 20 },
    );
    try {
      const end = await exitOf(session);
      expect(end.code, end.screen).toBe(0);
      const lines = joinedScreen(session);
      const note = lines.findIndex((l) => l.startsWith('Showed the first 5 contacts'));
      const lastRow = lines.findLastIndex((l) => ids.some((id) => l.startsWith(`${id}  `)));
      expect(note, lines.join('\n')).toBeGreaterThan(lastRow);
      expect(lastRow).toBeGreaterThan(0);
    } finally {
      killSession(session);
    }
  });

  it('quitting the pager before the list has arrived stops svc quietly with exit 0', async () => {
    await suite.sb.admin.setFaults({ latency_ms: 500 });
    try {
      const session = startShell(
        svcLine(['contacts', 'list', '--all', '--page-size', '1']),
        { ...env, PAGER: 'less -FRX', LESS: '' },
        {
          cols: 120,
          rows: 6,
        },
      );
      try {
        await waitFor(session, /^:\s*$/m);
        keys(session, 'q');
        // Well before the remaining pages (about 20 × 500 ms) could have been fetched, with room
        // for a loaded machine.
        const end = await exitOf(session, 6_000);
        expect(end.code, end.screen).toBe(0);
        expect(end.screen).not.toMatch(/error|EPIPE/);
      } finally {
        killSession(session);
      }
    } finally {
      await suite.sb.admin.setFaults({});
    }
  });

  it('Ctrl-C while paging stops the listing; svc waits for the pager, then exits 130 leaving the terminal sane', async () => {
    await suite.sb.admin.setFaults({ latency_ms: 300 });
    try {
      const line = `${svcLine(['contacts', 'list', '--all', '--page-size', '1'])}; echo "EXIT=$?"; stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo -e -icanon -e -echo | tr '\\n' ' '; echo`;
      const session = startShell(line, { ...env, PAGER: 'less -FRX', LESS: '' }, { cols: 120, rows: 6 });
      try {
        await waitFor(session, /^:\s*$/m);
        keys(session, 'C-c');
        await new Promise((r) => setTimeout(r, 1000));
        // less still has the terminal: svc did not exit under it.
        expect(screen(session)).not.toMatch(/EXIT=/);
        keys(session, 'q');
        const after = await waitFor(session, /EXIT=\d+[\s\S]*icanon/, 10_000);
        expect(after).toMatch(/EXIT=130/);
        expect(after).toMatch(/(^|\s)icanon echo/m);
      } finally {
        killSession(session);
      }
    } finally {
      await suite.sb.admin.setFaults({});
    }
  });

  it('never pages into a pipe, nor with --no-pager; pages on the terminal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-pager-'));
    try {
      const mark = join(dir, 'paged');
      const pagerEnv = { ...env, PAGER: `sh -c 'touch ${mark}; cat'` };
      const piped = startShell(`${svcLine(['contacts', 'list'])} | cat`, pagerEnv, { cols: 120, rows: 40 });
      try {
        const end = await exitOf(piped);
        expect(end.code).toBe(0);
        // TSV, long lines wrapping in the pane as plain text does; no header (tabs shown as spaces).
        expect(end.screen).toContain(ids.at(-1));
        expect(end.screen).not.toMatch(/^ID\s/m);
        expect(existsSync(mark)).toBe(false);
      } finally {
        killSession(piped);
      }
      const noPager = startShell(svcLine(['contacts', 'list', '--no-pager']), pagerEnv, { cols: 120, rows: 40 });
      try {
        expect((await exitOf(noPager)).code).toBe(0);
        expect(existsSync(mark)).toBe(false);
      } finally {
        killSession(noPager);
      }
      const tty = startShell(svcLine(['contacts', 'list']), pagerEnv, { cols: 120, rows: 40 });
      try {
        const end = await exitOf(tty);
        expect(end.code, end.screen).toBe(0);
        expect(end.screen, end.screen).toContain(ids[0]);
        expect(existsSync(mark)).toBe(true);
      } finally {
        killSession(tty);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
