/**
 * docs/cli-extensions.md lists what svc has beyond ../shared/spec/cli.md: every command and flag of
 * the tree must be named in one of the two, so a new flag cannot arrive undocumented. (A flag is
 * looked up by its text, as a reader searching the two pages would.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { fakeIO } from '../helpers/run-cli.js';

const root = join(import.meta.dirname, '..', '..');
const contract = readFileSync(join(root, '..', 'shared', 'spec', 'cli.md'), 'utf8');
const extensions = readFileSync(join(root, 'docs', 'cli-extensions.md'), 'utf8');
const named = (text: string) => contract.includes(text) || extensions.includes(text);
/** A flag as a word of its own: `--email` is not named by `--email-consent`. */
const flagNamed = (flag: string) => {
  const re = new RegExp(`(^|[^\\w-])${flag}(?![\\w-])`, 'm');
  return re.test(contract) || re.test(extensions);
};

it('every command and flag is in cli.md or docs/cli-extensions.md', () => {
  const program = buildProgram({ io: fakeIO().io, run: async () => {} }) as unknown as CommandUnknownOpts;
  const missing: string[] = [];
  const walk = (cmd: CommandUnknownOpts, path: string[]) => {
    const where = path.length ? `svc ${path.join(' ')}` : 'svc';
    if (path.length && !named(path.join(' '))) missing.push(where);
    for (const o of cmd.options) {
      const flag = o.long ?? o.short;
      if (flag && !flagNamed(flag)) missing.push(`${where} ${flag}`);
    }
    for (const sub of cmd.commands) if (sub.name() !== 'help') walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  expect(missing).toEqual([]);
});
