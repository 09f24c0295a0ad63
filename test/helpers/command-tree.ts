/** The CLI's command tree as commander builds it (with a fake terminal), for tests that walk it. */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { buildProgram } from '../../src/program.js';
import { fakeIO } from './run-cli.js';

/** The program, its actions never run. */
export function commandTree(): CommandUnknownOpts {
  return buildProgram({ io: fakeIO().io, run: async () => {} }) as unknown as CommandUnknownOpts;
}

/** Calls `visit` on every command of the tree with its path, the program's own ([]) first; `help` left out. */
export function walkCommands(visit: (cmd: CommandUnknownOpts, path: string[]) => void): void {
  const walk = (cmd: CommandUnknownOpts, path: string[]) => {
    visit(cmd, path);
    for (const sub of cmd.commands) if (sub.name() !== 'help') walk(sub, [...path, sub.name()]);
  };
  walk(commandTree(), []);
}

/** Every command path of the tree, the program's own ([]) first. */
export function commandPaths(): string[][] {
  const out: string[][] = [];
  walkCommands((_cmd, path) => out.push(path));
  return out;
}
