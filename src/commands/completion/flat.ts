/**
 * What the three completion scripts share: the command tree flattened for writing scripts, shell
 * quoting, and the header every script starts with.
 */
import type { CompletionNode, CompletionTree, ValueCompletion } from './tree.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** A word in single quotes for sh-like shells (bash, zsh). */
export function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A word in single quotes for fish (which escapes \ and ' inside them). */
export function fq(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A description on one short line. */
export function short(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 70 ? `${line.slice(0, 69)}…` : line;
}

export const key = (n: CompletionNode) => n.path.join(' ');

export interface Flat {
  nodes: CompletionNode[];
  root: CompletionNode;
  /** The options usable at a node: its own, then the global ones (the program's). */
  optionsAt(n: CompletionNode): CompletionNode['options'];
  /** (path, option-or-#N, completion) for every value that completes to something. */
  values: Array<{ path: string; what: string; value: Exclude<ValueCompletion, undefined>; global: boolean }>;
}

export function flatten(tree: CompletionTree): Flat {
  const root = tree.nodes[0] as CompletionNode;
  const optionsAt = (n: CompletionNode) =>
    n === root
      ? root.options
      : [...n.options, ...root.options.filter((o) => !o.names.includes('--help') && !o.names.includes('--version'))];
  const values: Flat['values'] = [];
  for (const n of tree.nodes) {
    for (const o of n.options) {
      if (!o.value) continue;
      for (const name of o.names) values.push({ path: key(n), what: name, value: o.value, global: n === root });
    }
    n.args.forEach((a, i) => {
      if (a) values.push({ path: key(n), what: `#${i}`, value: a, global: false });
    });
  }
  // Specific cases before the global ones (a shell's case takes the first match).
  values.sort((a, b) => Number(a.global) - Number(b.global));
  return { nodes: tree.nodes, root, optionsAt, values };
}

export function header(shell: Shell, version: string, install: string[]): string {
  return `# ${shell} completion for svc ${version}, written by \`svc completion ${shell}\` from its commands:
# write it again after upgrading svc.
${install.map((l) => `# ${l}`).join('\n')}
`;
}
