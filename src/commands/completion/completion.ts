/** svc completion SHELL: prints the completion script for bash, zsh or fish on stdout. */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { completionScript, type Shell } from './scripts.js';
import { completionTree } from './tree.js';

declare const __SVC_VERSION__: string;

export async function run(args: [shell: Shell], _opts: Record<never, never>, ctx: Context, program: CommandUnknownOpts): Promise<number> {
  const { HELP_TOPICS } = await import('../../help-topics.js');
  const tree = await completionTree(program, Object.keys(HELP_TOPICS));
  ctx.out.stdout(completionScript(args[0], tree, __SVC_VERSION__));
  return 0;
}
