/**
 * The pager, as gh runs one: long output at a terminal goes through `$SVC_PAGER`, else `$PAGER`,
 * else `less -FRX` (F: quit at once when the text fits one screen, R: keep colours, X: leave the
 * text on the screen); `LESS=FRX` is set for the pager when LESS is unset. A pager of `cat`, an
 * empty PAGER, or one not found on PATH (`less` missing) means none. The Context decides when to
 * page (stdout a terminal, not CI, no --no-pager); this module only starts and ends the process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Writable } from 'node:stream';

type Env = Record<string, string | undefined>;

export const DEFAULT_PAGER = 'less -FRX';

/** Splits a command line as a shell would for words and quotes ('…', "…", \\x); no expansion. */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const ch = line[i] as string;
    if (ch === "'" || ch === '"') {
      const quoted = readQuoted(line, i);
      word += quoted.text;
      inWord = true;
      i = quoted.end;
      continue;
    }
    if (ch === '\\' && i + 1 < line.length) {
      word += line[i + 1];
      inWord = true;
      i += 2;
      continue;
    }
    if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
    i++;
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * The quoted part whose quote is at `start`: its text (inside "…" a backslash escapes the next
 * character) and the index after its closing quote (the end of the line when it has none).
 */
function readQuoted(line: string, start: number): { text: string; end: number } {
  const quote = line[start];
  let text = '';
  let i = start + 1;
  for (; i < line.length; i++) {
    const ch = line[i] as string;
    if (ch === quote) return { text, end: i + 1 };
    if (ch === '\\' && quote === '"' && i + 1 < line.length) text += line[++i];
    else text += ch;
  }
  return { text, end: i };
}

/**
 * The pager's command line, or undefined for none: SVC_PAGER (empty counts as unset, like every
 * SVC_ variable), else PAGER (set but empty: no pager), else `less -FRX`; `cat` means none.
 */
export function pagerCommand(env: Env): { argv: string[]; chosen: boolean } | undefined {
  const own = env.SVC_PAGER;
  const line = own !== undefined && own !== '' ? own : (env.PAGER ?? DEFAULT_PAGER);
  const argv = splitCommand(line);
  if (argv.length === 0 || (argv.length === 1 && argv[0] === 'cat')) return undefined;
  return { argv, chosen: (own !== undefined && own !== '') || env.PAGER !== undefined };
}

/** The executable `name` runs (looked up on PATH unless it has a slash), or undefined. */
export function findExecutable(name: string, env: Env): string | undefined {
  const runnable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (name.includes('/')) return runnable(name) ? name : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const file = join(dir, name);
    if (runnable(file)) return file;
  }
  return undefined;
}

export interface Pager {
  /** Where stdout's text goes now. */
  readonly stdin: Writable;
  /** Closes the pager's input and waits until the person leaves it (q). */
  end(): Promise<void>;
}

/**
 * Starts the pager with the terminal as its stdout and stderr. `onGone` is called once if the
 * pager ends before `end()` was called (the person quit early: the exit status, null for a
 * signal), or if writing to it fails (EPIPE): nothing more needs printing, the run may stop.
 */
export function startPager(argv: readonly string[], env: Env, onGone: (status: number | null) => void): Pager {
  const pagerEnv: Env = { ...env };
  if (pagerEnv.LESS === undefined) pagerEnv.LESS = 'FRX';
  const child: ChildProcess = spawn(argv[0] as string, argv.slice(1), { stdio: ['pipe', 'inherit', 'inherit'], env: pagerEnv });
  const stdin = child.stdin as Writable;
  let ending = false;
  let told = false;
  const gone = (status: number | null) => {
    if (ending || told) return;
    told = true;
    onGone(status);
  };
  const closed = new Promise<void>((resolve) => {
    child.on('close', (code) => {
      resolve();
      gone(code);
    });
    child.on('error', () => {
      resolve();
      gone(null);
    });
  });
  // The person quit while text was still being written: EPIPE (or ECONNRESET). Never a crash.
  stdin.on('error', () => gone(0));
  return {
    stdin,
    async end() {
      ending = true;
      stdin.end();
      await closed;
    },
  };
}
