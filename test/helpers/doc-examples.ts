/**
 * The shell examples of README.md and docs/*.md, as a reader would copy them: every fenced block
 * tagged sh, bash, shell, zsh or console that calls `svc` (or `node bin/svc.js`), cut into
 * commands. A command is one logical line: backslash continuations, open quotes and unclosed
 * `{ … }` / `( … )` groups carry it over the next lines. In `console` blocks only the lines after
 * a `$ ` prompt are commands; the other lines are output. Comments stay in the command's text (bash
 * ignores them) but not in its key.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DocCommand {
  /** The text as written, continuation lines included (the `$ ` prompt removed). */
  text: string;
  /** Comment-free, whitespace-collapsed text: what allow-lists and expectations are keyed on. */
  key: string;
  /** Comment-free text, continuations joined, line breaks (command separators) kept: for svcCalls. */
  code: string;
  /** Line number of the command's first line in the document. */
  line: number;
  /** Whether it runs `svc` (anywhere in it: a pipeline, `$(…)`, a `{ … }` group). */
  callsSvc: boolean;
}

export interface DocBlock {
  doc: string;
  /** Line number of the opening fence. */
  line: number;
  lang: string;
  commands: DocCommand[];
}

const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'zsh', 'console']);

/** Where a comment starts (an unquoted `#` at the start of a word), the nesting left open, and whether a quote is. */
function scan(line: string, state: { quote: string; depth: number }): number {
  let comment = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (state.quote) {
      if (c === '\\' && state.quote === '"') i++;
      else if (c === state.quote) state.quote = '';
      continue;
    }
    if (c === '\\') {
      i++;
    } else if (c === "'" || c === '"') {
      state.quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] as string))) {
      comment = i;
      break;
    } else if (c === '(' || (c === '{' && (i === 0 || /[\s;&|]/.test(line[i - 1] as string)) && /\s|$/.test(line[i + 1] ?? ''))) {
      state.depth++;
    } else if (c === ')' || (c === '}' && (i === 0 || /[\s;]/.test(line[i - 1] as string)))) {
      state.depth--;
    }
  }
  return comment;
}

const SVC_CALL = /(?:^|[\s|;&({])(?:svc|node bin\/svc\.js)(?=\s|$)/;

/** The commands of one block's body (its lines between the fences). */
export function blockCommands(body: string[], firstLine: number, lang: string): DocCommand[] {
  const commands: DocCommand[] = [];
  let current: { lines: string[]; code: string[]; line: number } | undefined;
  const state = { quote: '', depth: 0 };
  for (let i = 0; i < body.length; i++) {
    let raw = body[i] as string;
    if (!current) {
      if (lang === 'console') {
        if (!raw.startsWith('$ ')) continue; // output
        raw = raw.slice(2);
      }
      if (raw.trim() === '' || raw.trimStart().startsWith('#')) continue;
      current = { lines: [], code: [], line: firstLine + i };
    }
    const comment = scan(raw, state);
    const code = (comment >= 0 ? raw.slice(0, comment) : raw).trimEnd();
    current.lines.push(raw);
    current.code.push(code);
    const continued = state.quote !== '' || state.depth > 0 || code.endsWith('\\');
    if (!continued) {
      const joined = current.code.join('\n').replace(/\\\n/g, ' ');
      const key = joined.replace(/\s+/g, ' ').trim();
      commands.push({ text: current.lines.join('\n'), key, code: joined, line: current.line, callsSvc: SVC_CALL.test(key) });
      current = undefined;
      state.depth = 0;
    }
  }
  if (current) throw new Error(`unterminated command at line ${current.line}: ${current.lines.join('\n')}`);
  return commands;
}

/** The shell blocks of one Markdown text that call svc. */
export function shellBlocks(doc: string, markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i] as string);
    if (!open) continue;
    const fence = open[2] as string;
    const indent = (open[1] as string).length;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !(lines[i] as string).trimStart().startsWith(fence); i++) body.push((lines[i] as string).slice(indent));
    const lang = (open[3] as string).toLowerCase();
    if (!SHELL_LANGS.has(lang)) continue;
    const commands = blockCommands(body, start + 2, lang);
    if (commands.some((c) => c.callsSvc)) blocks.push({ doc, line: start + 1, lang, commands });
  }
  return blocks;
}

/** Every svc-calling shell block of README.md and docs/*.md under `root`. */
export function docBlocks(root: string): DocBlock[] {
  const docs = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ];
  return docs.flatMap((doc) => shellBlocks(doc, readFileSync(join(root, doc), 'utf8')));
}

/**
 * The argument lists of the `svc` calls in a command (its `code`), split as the shell splits words:
 * quotes removed, `$(…)` and pipelines cut at their operators, a redirection's target dropped.
 * Expansions stay as written (`"$ID"` is the word `$ID`).
 */
export function svcCalls(key: string): string[][] {
  const segments: string[][] = [[]];
  let word: string | undefined;
  let redirect = false;
  const end = () => {
    if (word === undefined) return;
    if (redirect) redirect = false;
    else (segments[segments.length - 1] as string[]).push(word);
    word = undefined;
  };
  for (let i = 0; i < key.length; i++) {
    const c = key[i] as string;
    if (c === "'" || c === '"') {
      const close = c === "'" ? key.indexOf("'", i + 1) : key.slice(i + 1).search(/(?<!\\)"/) + i + 1;
      word = (word ?? '') + key.slice(i + 1, close).replace(/\\(["\\$`])/g, c === '"' ? '$1' : '\\$1');
      i = close;
    } else if (c === '\\') {
      word = (word ?? '') + (key[++i] ?? '');
    } else if (c === ' ' || c === '\t') {
      end();
    } else if ('<>'.includes(c)) {
      if (word !== undefined && /^\d$/.test(word)) word = undefined;
      end();
      redirect = true;
      if (key[i + 1] === c || key[i + 1] === '&') i++;
    } else if ('|&;(){}\n'.includes(c)) {
      if (c === '(' && word?.endsWith('$')) word = word.slice(0, -1) || undefined;
      end();
      segments.push([]);
    } else {
      word = (word ?? '') + c;
    }
  }
  end();
  const calls: string[][] = [];
  for (const words of segments) {
    while (words.length > 0 && /^\w+=/.test(words[0] as string)) words.shift(); // VAR=value before a command
    if (words[0] === 'svc') calls.push(words.slice(1));
    else if (words[0] === 'node' && words[1] === 'bin/svc.js') calls.push(words.slice(2));
  }
  return calls;
}
