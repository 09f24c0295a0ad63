/**
 * The commander tree as data for the completion scripts: every command path with its subcommands,
 * options and arguments, and what each value completes to. Read from the same tree that parses
 * argv, so the scripts never drift from the commands.
 */
import { type Argument, type CommandUnknownOpts, Help, type Option } from '@commander-js/extra-typings';
import { completionValuesOf } from '../loader.js';

/** What a value completes to: fixed words, the stored profile names (at completion time), file names, or nothing. */
export type ValueCompletion = { words: string[] } | { profiles: true } | { files: true } | undefined;

export interface CompletionOption {
  /** `--email-consent`; `-y` as well when the option has a short name. */
  names: string[];
  description: string;
  takesValue: boolean;
  value: ValueCompletion;
}

export interface CompletionNode {
  /** Words after `svc`: [] for the program itself, ['contacts', 'list'], … */
  path: string[];
  description: string;
  commands: Array<{ name: string; description: string }>;
  options: CompletionOption[];
  args: ValueCompletion[];
}

export interface CompletionTree {
  /** Every command, the program first; global options are the program's and count everywhere. */
  nodes: CompletionNode[];
  /** `svc help TOPIC` topics besides the command paths. */
  helpTopics: string[];
}

/**
 * The subcommands commander's default help lists (its documented `Help.visibleCommands`: hidden
 * ones left out), without the help command (svc's own is added below). The default Help, not
 * the command's: svc's root help lists its commands itself and shows none through commander.
 */
function visibleSubcommands(cmd: CommandUnknownOpts): CommandUnknownOpts[] {
  const visible = new Set<unknown>(new Help().visibleCommands(cmd));
  return cmd.commands.filter((c) => visible.has(c) && c.name() !== 'help');
}

async function completionOf(target: Option | Argument, placeholder: string): Promise<ValueCompletion> {
  const tagged = completionValuesOf(target);
  if (tagged === 'profiles') return { profiles: true };
  if (tagged === 'files') return { files: true };
  if (typeof tagged === 'function') return { words: [...(await tagged())] };
  if (tagged) return { words: [...tagged] };
  if (target.argChoices) return { words: [...target.argChoices] };
  // `--report <file>`, `<file>`: a file name.
  return placeholder === 'file' ? { files: true } : undefined;
}

export async function completionTree(program: CommandUnknownOpts, helpTopics: string[]): Promise<CompletionTree> {
  const nodes: CompletionNode[] = [];
  const walk = async (cmd: CommandUnknownOpts, path: string[]) => {
    const subs = visibleSubcommands(cmd);
    const options: CompletionOption[] = [];
    for (const o of cmd.options as readonly Option[]) {
      if (o.hidden) continue;
      const placeholder = /<([^>]+)>|\[([^\]]+)\]/.exec(o.flags);
      options.push({
        names: [o.long, o.short].filter((n): n is string => typeof n === 'string'),
        description: o.description,
        takesValue: o.required || o.optional,
        value: o.required || o.optional ? await completionOf(o, placeholder?.[1] ?? placeholder?.[2] ?? '') : undefined,
      });
    }
    // The help flag is commander's own, on every command.
    options.push({ names: ['--help', '-h'], description: 'show help', takesValue: false, value: undefined });
    const args: ValueCompletion[] = [];
    for (const a of cmd.registeredArguments) args.push(await completionOf(a, a.name()));
    nodes.push({
      path,
      description: cmd.description(),
      commands: subs.map((c) => ({ name: c.name(), description: c.description() })),
      options,
      args,
    });
    for (const sub of subs) await walk(sub, [...path, sub.name()]);
  };
  await walk(program, []);
  const root = nodes[0] as CompletionNode;
  root.commands.push({ name: 'help', description: 'show help for a command or a topic' });
  return { nodes, helpTopics };
}
