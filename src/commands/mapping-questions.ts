/**
 * Mapping on a terminal: when the header lacks a required field's column, or several columns
 * could be one field, and stdin and stdout are both terminals (not CI, not --json), svc asks for
 * each (the file's columns, each with three sample values), then offers to save the answers as a
 * mapping file and prints the command that reuses it. Anywhere else the exit 2 and its hint stay.
 */
import { closeSync, existsSync, openSync, readSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { Readable } from 'node:stream';
import type { ImportInput } from '../bulk/index.js';
import { openCsv } from '../bulk/index.js';
import type { Context } from '../context.js';
import { rankColumns } from '../importer/column-names.js';
import { AmbiguousColumnError, MissingColumnsError } from '../importer/field-columns.js';
import type { Choice, Prompter } from '../io/prompter.js';

/** What a question says about a field, and whether a constant may stand for it (`--set`). */
export interface FieldQuestion {
  /** `the order's total (the amount paid)`. */
  what: string;
  /** An example of the value every row may get instead of a column (currency: `EUR`). */
  constant?: string;
  /** Whether a typed constant is one (`true`), else what is wrong with it. */
  check?: (value: string) => true | string;
}

export interface MappingQuestions<L> {
  ctx: Context;
  input: ImportInput;
  kind: 'orders' | 'contacts';
  header: readonly string[];
  delimiter: string;
  fields: Record<string, FieldQuestion>;
  aliases: Partial<Record<string, readonly string[]>>;
  /** `--map` columns and `--set` values given so far (answers are added to copies). */
  maps: ReadonlyMap<string, string>;
  sets: ReadonlyMap<string, string>;
  /** A preset or --map-file is in use: the answers are reused as flags, not as a new file. */
  mapFileInUse: boolean;
  /** The layout for these columns and constants; throws MissingColumnsError / AmbiguousColumnError. */
  layout(maps: ReadonlyMap<string, string>, sets: ReadonlyMap<string, string>): L;
  /** The command that imports the file again: with `--map-file PATH`, or with the answers' flags. */
  reuse(how: { mapFile: string } | { map: string[]; set: string[] }): string;
}

export interface MappingAnswers<L> {
  layout: L;
  /** The columns and constants, given and answered: what the run uses (journal, resume command). */
  maps: Map<string, string>;
  sets: Map<string, string>;
  /** Whether anything was asked. */
  asked: boolean;
}

/** Questions only with a person at both ends: stdin and stdout terminals, not CI, not --json, a regular file to take samples from. */
export function canAskMapping(ctx: Context, input: ImportInput): boolean {
  return ctx.policy.canPrompt && ctx.io.stdoutIsTTY && input.resumable && !input.fromStdin;
}

const NONE = '\u0000none';
const CONSTANT = '\u0000constant';
/** How much of the file is read for sample values: the first rows of any export fit. */
const SAMPLE_BYTES = 256 * 1024;
const SAMPLES = 3;

/** The layout, asking on a terminal for what the header does not say. */
export async function layoutWithQuestions<L>(q: MappingQuestions<L>): Promise<MappingAnswers<L>> {
  const maps = new Map(q.maps);
  const sets = new Map(q.sets);
  const answered: Array<[string, string]> = [];
  const constants: Array<[string, string]> = [];
  let ask: Asking<L> | undefined;
  // Each round answers at least one field; a field asked twice means the answers did not help.
  for (let round = 0; ; round++) {
    try {
      const layout = q.layout(maps, sets);
      if (ask && answered.length + constants.length > 0) await offerToSave(q, ask.prompter, answered, constants);
      return { layout, maps, sets, asked: round > 0 };
    } catch (err) {
      if (!isGap(err) || round >= 8 || !canAskMapping(q.ctx, q.input)) throw err;
      // The samples are read and the prompter made once, at the first question.
      ask ??= { q, samples: await readSamples(q), prompter: await q.ctx.prompter(), maps, sets, answered, constants };
      if (!(await askAbout(ask, err))) throw err;
    }
  }
}

function isGap(err: unknown): err is MissingColumnsError | AmbiguousColumnError {
  return err instanceof MissingColumnsError || err instanceof AmbiguousColumnError;
}

/** The question for a gap in the layout; false when nothing could be answered. */
async function askAbout<L>(a: Asking<L>, err: MissingColumnsError | AmbiguousColumnError): Promise<boolean> {
  if (err instanceof MissingColumnsError) return askMissing(a, err);
  await askWhich(a, err);
  return true;
}

interface Asking<L> {
  q: MappingQuestions<L>;
  prompter: Prompter;
  samples: string[][];
  maps: Map<string, string>;
  sets: Map<string, string>;
  answered: Array<[string, string]>;
  constants: Array<[string, string]>;
}

/** Several columns could be the field: which one. */
async function askWhich<L>(a: Asking<L>, err: AmbiguousColumnError): Promise<void> {
  const i = await a.prompter.select({
    message: `Several columns could be ${err.field} (${a.q.fields[err.field]?.what ?? err.field}). Which one?`,
    choices: err.columns.map((c) => columnChoice(a, c)),
  });
  answer(a, err.field, Number(i));
}

/** Each missing field (`email or phone`: each of the two, either may be none); false when nothing could be answered. */
async function askMissing<L>(a: Asking<L>, err: MissingColumnsError): Promise<boolean> {
  const used = new Set([...err.used, ...[...a.maps.values()].map((c) => columnIndex(a.q.header, c))]);
  let any = false;
  for (const label of err.missing) {
    const fields = label.split(' or ');
    for (const field of fields) {
      const either = fields.length > 1;
      const picked = await askField(a, field, used, either);
      if (picked === NONE) continue;
      any = true;
      if (picked !== CONSTANT) used.add(Number(picked));
      // `email or phone`: one is enough, the other is asked only when the first is none.
      if (either) break;
    }
  }
  return any;
}

/** One field's question: a column (its index), NONE, or CONSTANT once its value was asked and kept. */
async function askField<L>(a: Asking<L>, field: string, used: Set<number>, optional: boolean): Promise<string> {
  const spec = a.q.fields[field];
  const order = rankColumns(field, a.q.header, used, a.q.aliases[field] ?? []);
  const choices: Choice<string>[] = order.map((c) => columnChoice(a, c.index));
  // No column looks like it (a currency the export does not write): the constant comes first.
  if (spec?.constant) {
    const constant = { name: `none: every row has the same ${field} (type it)`, value: CONSTANT };
    if (order.some((c) => c.likely)) choices.push(constant);
    else choices.unshift(constant);
  }
  if (optional) choices.push({ name: `none: the file has no ${field}`, value: NONE });
  const picked = await a.prompter.select({ message: `Which column holds ${field} (${spec?.what ?? field})?`, choices });
  if (picked === NONE) return NONE;
  if (picked === CONSTANT) {
    const value = await a.prompter.input({
      message: `${field} of every row (e.g. ${spec?.constant}):`,
      validate: (v) => (v.trim() === '' ? `give a ${field}` : (spec?.check?.(v.trim()) ?? true)),
    });
    a.sets.set(field, value.trim());
    a.constants.push([field, value.trim()]);
    return CONSTANT;
  }
  answer(a, field, Number(picked));
  return picked;
}

function answer<L>(a: Asking<L>, field: string, column: number): void {
  const ref = columnRef(a.q.header, column);
  a.maps.set(field, ref);
  a.answered.push([field, ref]);
}

/** A column as a mapping names it: its name, or `#N` when another column has the same name. */
function columnRef(header: readonly string[], i: number): string {
  const name = header[i] as string;
  return header.filter((h) => h === name).length === 1 && name.trim() !== '' && !/^#\d+$/.test(name) ? name : `#${i + 1}`;
}

function columnIndex(header: readonly string[], ref: string): number {
  const n = /^#(\d+)$/.exec(ref);
  return n ? Number(n[1]) - 1 : header.indexOf(ref);
}

/** `Order Total   e.g. "12.00", "9.90", "116.99"`, within 76 columns. */
function columnChoice<L>(a: Asking<L>, i: number): Choice<string> {
  const name = cut(a.q.header[i] || `(column ${i + 1}, no name)`, 30);
  const values = a.samples[i] ?? [];
  const shown = values.length === 0 ? '(empty in the first rows)' : `e.g. ${values.map((v) => JSON.stringify(cut(v, 18))).join(', ')}`;
  const line = `${name}  ${shown}`;
  return { name: line.length <= 76 ? line : `${line.slice(0, 75)}…`, value: String(i) };
}

function cut(s: string, n: number): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length <= n ? one : `${one.slice(0, n - 1)}…`;
}

/** The first non-empty values of each column, from the start of the file (read once, at most 256 KiB). */
async function readSamples<L>(q: MappingQuestions<L>): Promise<string[][]> {
  const size = Math.min(statSync(q.input.file).size, SAMPLE_BYTES);
  const buf = Buffer.alloc(size);
  const fd = openSync(q.input.file, 'r');
  try {
    readSync(fd, buf, 0, size, 0);
  } finally {
    closeSync(fd);
  }
  const out: string[][] = q.header.map(() => []);
  const source = await openCsv(Readable.from([buf]), { delimiter: q.delimiter, name: q.input.file, encoding: q.input.encoding });
  let full = 0;
  for await (const item of source.items) {
    // The last row of the prefix may be cut: an error item, skipped like any other.
    if (item.kind !== 'row') continue;
    item.cells.forEach((c, i) => {
      const list = out[i];
      const v = c.trim();
      if (!list || v === '' || list.length >= SAMPLES || list.includes(v)) return;
      list.push(v);
      if (list.length === SAMPLES) full++;
    });
    if (full === out.length) break;
  }
  return out;
}

/** After the answers: save them as a mapping file (or say the flags), and the command that reuses them. */
async function offerToSave<L>(
  q: MappingQuestions<L>,
  prompter: Prompter,
  answered: Array<[string, string]>,
  constants: Array<[string, string]>,
): Promise<void> {
  const flags = { map: answered.map(([f, c]) => `${f}=${c}`), set: constants.map(([f, v]) => `${f}=${v}`) };
  if (q.mapFileInUse) {
    q.ctx.out.info(`to import it the same way without questions:\n  ${q.reuse(flags)}`);
    return;
  }
  const save = await prompter.confirm({ message: 'Save these answers as a mapping file, to import without questions?', default: true });
  if (!save) {
    q.ctx.out.info(`to import it the same way without questions:\n  ${q.reuse(flags)}`);
    return;
  }
  const stem = basename(q.input.file, extname(q.input.file));
  const suggested = join(dirname(q.input.file), `${stem}.map.json`);
  const path = await prompter.input({
    message: 'Mapping file:',
    default: suggested,
    validate: (v) => {
      const p = v.trim();
      if (p === '') return 'give a file name';
      if (!existsSync(dirname(p) || '.')) return `the folder ${dirname(p)} does not exist`;
      if (existsSync(p) && statSync(p).isDirectory()) return `${p} is a folder`;
      return true;
    },
  });
  const file = path.trim();
  if (existsSync(file) && !(await prompter.confirm({ message: `${file} exists. Replace it?`, default: false }))) {
    q.ctx.out.info(`not saved; to import it the same way without questions:\n  ${q.reuse(flags)}`);
    return;
  }
  writeFileSync(file, `${JSON.stringify(mapFileOf(q, answered, constants), null, 2)}\n`);
  q.ctx.out.info(`saved the mapping to ${file}; import with it (this file or the next export):\n  ${q.reuse({ mapFile: file })}`);
}

/** The answers (and the --map/--set given with them) as a mapping file of the kind. */
function mapFileOf<L>(q: MappingQuestions<L>, answered: Array<[string, string]>, constants: Array<[string, string]>): object {
  const columns: Record<string, string> = {};
  for (const [f, c] of q.maps) columns[f] = c;
  for (const [f, c] of answered) columns[f] = c;
  const set: Record<string, string> = {};
  for (const [f, v] of q.sets) set[f] = v;
  for (const [f, v] of constants) set[f] = v;
  return {
    kind: q.kind,
    description: `columns of ${basename(q.input.file)}, as answered on a terminal`,
    columns,
    ...(Object.keys(set).length > 0 ? { set } : {}),
    ignore_unmapped: true,
  };
}
