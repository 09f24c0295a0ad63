/** completionTree (commands/completion/tree.ts) reads commander's public API: hidden commands and options stay out. */
import { Command } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import { completionTree } from '../../src/commands/completion/tree.js';

describe('completionTree', () => {
  it('leaves out hidden commands and options, as help does', async () => {
    const program = new Command('svc');
    const contacts = program.command('contacts').description('contacts');
    contacts.command('list').description('list them').option('--limit <n>', 'how many');
    contacts.command('purge', { hidden: true }).description('not for people');
    program.command('internal', { hidden: true }).description('hidden too');
    program.addOption(new (await import('@commander-js/extra-typings')).Option('--trace', 'debug').hideHelp());
    const tree = await completionTree(program, []);
    expect(tree.nodes.map((n) => n.path.join(' '))).toEqual(['', 'contacts', 'contacts list']);
    // svc's own help command (with its topics) is added to the program's.
    expect(tree.nodes[0]?.commands.map((c) => c.name)).toEqual(['contacts', 'help']);
    expect(tree.nodes[1]?.commands.map((c) => c.name)).toEqual(['list']);
    expect(tree.nodes[0]?.options.flatMap((o) => o.names)).not.toContain('--trace');
  });
});
