/**
 * How commands are wired: each verb module exports `run`, loaded lazily by its action. The
 * options a define.ts declares and the options type of the verb's `run` are tied together by the
 * compiler (see ActionFactory): a flag missing on either side, or parsed to a value the verb does
 * not accept, fails `npm run typecheck`.
 */
import { type CommandUnknownOpts, InvalidArgumentError, Option, type OptionValues } from '@commander-js/extra-typings';
import type { Context } from '../context.js';

/** A verb module: `run(args, options, ctx)` returns the exit code (or nothing for 0) and throws typed errors. */
export interface CommandModule<Args extends unknown[], Opts> {
  run(args: Args, opts: Opts, ctx: Context): Promise<number | undefined>;
}

/** Names in A that B lacks. */
type Missing<A, B> = Exclude<keyof A, keyof B> & string;

/** Names in both whose value in D (what commander parses) is not assignable to V's (what the verb reads). */
type Unfit<D, V> = { [K in keyof D & keyof V]-?: D[K] extends V[K] ? never : K }[keyof D & keyof V] & string;

/**
 * Nothing when the verb's options type `Verb` matches the options `Declared` in define.ts (the
 * same names, and each parsed value assignable to the verb's type); otherwise a property the verb
 * module lacks, whose type names the mismatch, so `action(() => import(…))` fails to compile.
 */
export type OptionsCheck<Declared, Verb> = [Missing<Declared, Verb>] extends [never]
  ? [Missing<Verb, Declared>] extends [never]
    ? [Unfit<Declared, Verb>] extends [never]
      ? unknown
      : { optionsMismatch: `options whose parsed value the verb's options type does not accept: ${Unfit<Declared, Verb>}` }
    : { optionsMismatch: `options the verb reads but define.ts does not declare: ${Missing<Verb, Declared>}` }
  : { optionsMismatch: `options define.ts declares but the verb's options type lacks: ${Missing<Declared, Verb>}` };

/** Nothing when the verb's `run` accepts the arguments commander passes; otherwise a property naming both. */
export type ArgumentsCheck<Declared extends unknown[], Verb> = Declared extends Verb
  ? unknown
  : { argumentsMismatch: { declared: Declared; verb: Verb } };

/**
 * Wraps a lazy verb module into a commander action. `Args` and `Declared` come from the command
 * being defined (the `.action()` it is passed to), `VerbArgs` and `Verb` from the module's `run`.
 */
export type ActionFactory = <Args extends unknown[], Declared extends OptionValues, VerbArgs extends unknown[], Verb>(
  load: () => Promise<
    CommandModule<VerbArgs, Verb> & ArgumentsCheck<NoInfer<Args>, NoInfer<VerbArgs>> & OptionsCheck<NoInfer<Declared>, NoInfer<Verb>>
  >,
) => (this: CommandUnknownOpts, ...args: [...Args, Declared, CommandUnknownOpts]) => Promise<void>;

/** Collects a repeatable option (`--map a=b --map c=d`) into an array. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Parses a positive integer option; a bad value is a usage error (exit 2). */
/**
 * The most requests in flight any bulk verb takes (--concurrency): the scheduler buffers lines
 * per slot, so a ceiling keeps memory bounded (the connection pool has 64 anyway).
 */
export const MAX_CONCURRENCY = 256;

/** --concurrency of every bulk verb: a whole number from 1 to MAX_CONCURRENCY (`1e9` is refused, not a billion). */
export function concurrency(value: string): number {
  if (!/^\d{1,9}$/.test(value.trim()) || Number(value) < 1)
    throw new InvalidArgumentError(`--concurrency must be a positive integer, at most ${MAX_CONCURRENCY}`);
  const n = Number(value);
  if (n > MAX_CONCURRENCY)
    throw new InvalidArgumentError(`--concurrency must be at most ${MAX_CONCURRENCY} (more requests in flight than that only queue up)`);
  return n;
}

export function positiveInt(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
    return n;
  };
}

/**
 * What the shell completion offers for an option's or argument's value, beyond commander's
 * `.choices()` (which it reads itself): fixed words (from the contract), words found when the
 * script is generated (a loader, so that nothing is imported at start-up), the stored profile
 * names (asked of `svc auth list --names` at completion time), or file names.
 */
export type CompletionValues = readonly string[] | (() => Promise<readonly string[]>) | 'profiles' | 'files';

const completionValues = new WeakMap<object, CompletionValues>();

/** Tags an Option or Argument with what completion offers for its value; returns it. */
export function completeWith<T extends object>(target: T, values: CompletionValues): T {
  completionValues.set(target, values);
  return target;
}

/** The completion values a define.ts gave an Option or Argument, if any. */
export function completionValuesOf(target: object): CompletionValues | undefined {
  return completionValues.get(target);
}

/**
 * The "Examples:" section of a command's help, as gh shows it: command lines indented (a `# …`
 * comment may follow one), then an optional note. Every line must run as written: no secret in
 * argv (tokens come from the environment or stdin).
 */
export function examples(lines: readonly string[], note?: string): string {
  return `\nExamples:\n${lines.flatMap(exampleLines).join('\n')}${note ? `\n\n${wrapNote(note)}` : ''}`;
}

/** Help fits 80 columns (a terminal's usual width, and commander's width off a terminal). */
const HELP_WIDTH = 80;

/**
 * One example as help lines within 80 columns: a comment that would pass them goes on a line of
 * its own above; a command still too long is broken between words (never inside quotes) into
 * lines continued with ` \`, as it would be typed in a shell.
 */
function exampleLines(line: string): string[] {
  if (`  ${line}`.length <= HELP_WIDTH) return [`  ${line}`];
  const at = line.search(/\s{2,}# /);
  const comment = at >= 0 ? [`  ${line.slice(at).trim()}`] : [];
  const command = at >= 0 ? line.slice(0, at).trimEnd() : line;
  return [...comment, ...continued(shellWords(command), HELP_WIDTH)];
}

/** Words of a shell line split at unquoted spaces, each keeping its quotes. */
function shellWords(line: string): string[] {
  // A run of plain characters and quoted parts (a quote left open runs to the end of the line).
  return line.match(/(?:[^ "']|"[^"]*"?|'[^']*'?)+/g) ?? [];
}

/**
 * Words laid out in lines of at most `width` (the first indented 2, the rest 6), each but the last
 * ending in a backslash; a flag stays on the line of its value.
 */
function continued(words: string[], width: number): string[] {
  const units: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const next = words[i + 1];
    if (/^--?[A-Za-z]/.test(w) && !w.includes('=') && next !== undefined && !/^[-|&;<>]/.test(next)) {
      units.push(`${w} ${next}`);
      i++;
    } else units.push(w);
  }
  const lines: string[] = [];
  let cur = '  ';
  for (const w of units) {
    const fresh = cur.trim() === '';
    if (!fresh && cur.length + 1 + w.length + 2 > width) {
      lines.push(`${cur} \\`);
      cur = `      ${w}`;
    } else cur = fresh ? `${cur}${w}` : `${cur} ${w}`;
  }
  lines.push(cur);
  return lines;
}

/**
 * A note under the examples within 80 columns: a paragraph with a longer line is reflowed between
 * words; paragraphs that fit (lists, aligned text) are kept as written.
 */
function wrapNote(text: string): string {
  return text
    .split('\n\n')
    .map((para) => {
      if (para.split('\n').every((l) => l.length <= HELP_WIDTH)) return para;
      const out: string[] = [];
      let cur = '';
      for (const w of para.split(/\s+/)) {
        if (cur && cur.length + 1 + w.length > HELP_WIDTH) {
          out.push(cur);
          cur = w;
        } else cur = cur ? `${cur} ${w}` : w;
      }
      out.push(cur);
      return out.join('\n');
    })
    .join('\n\n');
}

/** --plan-read, as every verb that takes --plan declares it. */
export function planReadOption() {
  return new Option('--plan-read <how>', 'with --plan: read the account by pages, look-ups or auto (default)').choices([
    'auto',
    'pages',
    'lookups',
  ] as const);
}
