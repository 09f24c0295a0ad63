/**
 * Every command's help (`svc --help`, `svc <noun> --help`, `svc <noun> <verb> --help`) has an
 * Examples section, and every `svc …` line in it is accepted by the real command tree as written:
 * the command exists, each flag is one of its own or a global one, values fit their choices, the
 * arguments are there. No example carries a secret in argv.
 */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import { resolveHelp } from '../../src/help-topics.js';
import { buildProgram, CommanderError } from '../../src/program.js';
import { commandPaths } from '../helpers/command-tree.js';
import { fakeIO, runCli } from '../helpers/run-cli.js';

const paths = commandPaths;

/** The example lines of a help text: the indented lines after "Examples:" up to a blank line. */
function exampleLines(help: string): string[] {
  const at = help.indexOf('\nExamples:\n');
  if (at < 0) return [];
  const lines: string[] = [];
  let pending = '';
  for (const line of help.slice(at + '\nExamples:\n'.length).split('\n')) {
    if (!line.startsWith('  ')) break;
    // A long example is continued on the next lines (` \` at the end, as typed in a shell); a
    // comment line stands alone.
    if (line.trimEnd().endsWith(' \\')) {
      pending += `${line.trim().slice(0, -1)}`;
      continue;
    }
    const whole = `${pending}${line.trim()}`;
    pending = '';
    if (!whole.startsWith('#')) lines.push(whole);
  }
  return lines;
}

/**
 * The `svc …` commands of a shell line: each part of a pipeline or list whose first word is svc,
 * and each `$(svc …)` inside, split into words the way sh does for these simple cases.
 */
function svcCommands(line: string): string[][] {
  const found: string[][] = [];
  const scan = (text: string) => {
    const segments: string[] = [];
    let cur = '';
    let quote = '';
    for (let i = 0; i < text.length; i++) {
      const c = text[i] as string;
      if (quote === "'" || (quote === '"' && !(c === '$' && text[i + 1] === '('))) {
        if (c === quote) quote = '';
        cur += c;
      } else if (c === '"' || c === "'") {
        quote = c;
        cur += c;
      } else if ((c === '$' || c === '<') && text[i + 1] === '(') {
        // $(command) and <(command): the command inside is one of its own.
        let depth = 0;
        let j = i + 1;
        for (; j < text.length; j++) {
          if (text[j] === '(') depth++;
          if (text[j] === ')' && --depth === 0) break;
        }
        scan(text.slice(i + 2, j));
        cur += 'SUBST';
        i = j;
      } else if (c === '#' && /\s$/.test(cur)) {
        break;
      } else if ('|&;<>'.includes(c)) {
        segments.push(cur);
        cur = '';
        if (c === '<' || c === '>') cur = '\0redirect ';
      } else cur += c;
    }
    segments.push(cur);
    for (const seg of segments) {
      if (seg.startsWith('\0')) continue;
      const words = shellWords(seg).filter((w, i, all) => !(i < all.indexOf('svc') && /^[A-Z_]+=/.test(w)));
      if (words[0] === 'svc') found.push(words.slice(1));
    }
  };
  scan(line);
  return found;
}

function shellWords(text: string): string[] {
  const words: string[] = [];
  let cur: string | undefined;
  let quote = '';
  for (const c of text) {
    if (quote) {
      if (c === quote) quote = '';
      else cur = (cur ?? '') + c;
    } else if (c === '"' || c === "'") {
      quote = c;
      cur ??= '';
    } else if (/\s/.test(c)) {
      if (cur !== undefined) words.push(cur);
      cur = undefined;
    } else cur = (cur ?? '') + c;
  }
  if (cur !== undefined) words.push(cur);
  return words;
}

/** Parses argv with the real tree; resolves to undefined when a command's action was reached, else the error. */
async function parseOnly(argv: string[]): Promise<string | undefined> {
  const f = fakeIO();
  let reached = false;
  const program = buildProgram({
    io: f.io,
    run: async () => {
      reached = true;
    },
  });
  if (argv[0] === 'help') {
    const asked = resolveHelp(program as unknown as CommandUnknownOpts, argv.slice(1));
    return 'unknown' in asked ? `unknown help ${asked.unknown}` : undefined;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return `${err.code}: ${f.stderr()}`;
    throw err;
  }
  return reached ? undefined : 'no action reached';
}

const all = paths();

describe('examples in every command help', () => {
  it.each(all.map((p) => [p.join(' ') || '(svc)', p]))('svc %s --help has examples that parse', async (_name, path) => {
    const r = await runCli([...(path as string[]), '--help']);
    expect(r.code).toBe(0);
    const lines = exampleLines(r.stdout);
    expect(lines.length, r.stdout).toBeGreaterThan(0);
    const commands = lines.flatMap(svcCommands);
    expect(commands.length).toBeGreaterThanOrEqual(lines.length);
    for (const argv of commands) {
      expect(await parseOnly(argv), `svc ${argv.join(' ')}`).toBeUndefined();
      // A secret is read from stdin or the environment, never from argv.
      expect(argv.join(' ')).not.toMatch(/(svc|sk|tok)_[A-Za-z0-9]{16,}|--token\b|--client-secret(?!-stdin)/);
    }
  });

  it('covers every command of the tree (nouns, verbs and the program)', () => {
    expect(all.length).toBeGreaterThanOrEqual(25);
    expect(all.map((p) => p.join(' '))).toEqual(
      expect.arrayContaining(['', 'auth', 'auth list', 'auth switch', 'completion', 'contacts list']),
    );
  });

  it('the parser check catches a wrong example', async () => {
    expect(await parseOnly(['contacts', 'list', '--no-such-flag'])).toMatch(/unknownOption/);
    expect(await parseOnly(['contacts', 'list', '--format', 'xml'])).toMatch(/invalidArgument/);
    expect(await parseOnly(['contacts', 'get'])).toMatch(/missingArgument/);
    expect(svcCommands(`x=$(svc contacts list --json | jq -r '.[0].id') && svc contacts get "$x" # note`)).toEqual([
      ['contacts', 'list', '--json'],
      ['contacts', 'get', '$x'],
    ]);
  });
});
