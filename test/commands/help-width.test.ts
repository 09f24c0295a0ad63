import { describe, expect, it } from 'vitest';
import { commandPaths } from '../helpers/command-tree.js';
import { runCli } from '../helpers/run-cli.js';

const paths = commandPaths;

const tooWide = (text: string) => text.split('\n').filter((l) => [...l].length > 80);

describe('help at 80 columns', () => {
  it('no line of any help page or topic is longer than 80 characters, on a terminal of 80 or off one', async () => {
    for (const path of paths()) {
      for (const tty of [true, false]) {
        const r = await runCli([...path, '--help'], { tty, columns: 80 });
        expect(r.code).toBe(0);
        expect(tooWide(r.stdout), `svc ${path.join(' ')} --help`).toEqual([]);
      }
    }
    for (const topic of ['environment', 'exit-codes']) {
      const r = await runCli(['help', topic]);
      expect(tooWide(r.stdout), `svc help ${topic}`).toEqual([]);
    }
  });

  it('the top-level help lists every command once', async () => {
    const r = await runCli(['help']);
    const section = r.stdout.split('\nCommands:\n')[1]?.split('\n\n')[0] ?? '';
    const names = section
      .split('\n')
      .filter((l) => /^ {2}\S/.test(l))
      .map((l) => l.trim().split(/\s{2,}/)[0]);
    expect(names).toContain('contacts list');
    expect(names).toContain('sandbox start');
    expect(new Set(names).size).toBe(names.length);
    expect(r.stdout.match(/\nCommands:\n/g)).toHaveLength(1);
    for (const leaf of paths().filter((p) => p.length === 2)) expect(names.some((n) => n?.startsWith(leaf.join(' ')))).toBe(true);
  });

  it('a wide terminal gets wider help', async () => {
    const r = await runCli(['help'], { tty: true, columns: 160 });
    expect(r.stdout).toMatch(/auth status {2,}show the profile, base URL, method, where the credentials come from, granted/);
  });
});

describe('a command group alone', () => {
  it('prints its help on stdout and exits 0, like bare svc', async () => {
    for (const argv of [[], ['auth'], ['contacts'], ['orders'], ['events'], ['sandbox']]) {
      const r = await runCli(argv);
      expect(r.code, `svc ${argv.join(' ')}`).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: svc${argv.length ? ` ${argv[0]}` : ''} `));
      expect(r.stderr).toBe('');
    }
  });

  it('an unknown subcommand is still a usage error with a suggestion', async () => {
    const r = await runCli(['contacts', 'lsit']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'lsit'");
    expect(r.stderr).toContain('Did you mean list?');
  });
});
