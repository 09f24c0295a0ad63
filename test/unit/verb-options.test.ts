/**
 * The options a define.ts declares and the verb's options type are tied by the compiler. The
 * `@ts-expect-error` lines below are the proof: `npm run typecheck` fails ("unused directive")
 * if any of these mismatches ever compiles again. The runtime test checks that what commander
 * passes is what the types say.
 */
import { Command } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import type { ActionFactory, CommandModule } from '../../src/commands/loader.js';
import { collect, positiveInt } from '../../src/commands/loader.js';
import type { Context } from '../../src/context.js';

interface ListOptions {
  limit?: number;
  all?: boolean;
  map?: string[];
  format?: string;
}

const calls: Array<{ args: unknown[]; opts: unknown }> = [];

/** A verb module as `await import('./list.js')` would give it. */
function verb<Args extends unknown[], Opts>(): Promise<CommandModule<Args, Opts>> {
  return Promise.resolve({
    async run(args: Args, opts: Opts) {
      calls.push({ args, opts });
      return 0;
    },
  });
}

/** What main.ts does with a checked verb: load it and run it (these verbs read no context). */
async function runVerb(load: () => Promise<CommandModule<unknown[], unknown>>, args: unknown[], opts: unknown): Promise<void> {
  await (await load()).run(args, opts, {} as Context);
}

/** The shape of program.ts's factory, without the global flags. */
const action: ActionFactory = (load) =>
  async function () {
    await runVerb(load, this.processedArgs, { ...this.opts() });
  };

function program(): Command {
  return new Command('t').exitOverride();
}

describe('verb options are checked against the declared flags', () => {
  it('a verb whose options match its flags receives the parsed values', async () => {
    const p = program();
    p.command('list')
      .argument('[id]')
      .option('--limit <n>', 'limit', positiveInt('--limit'))
      .option('--all', 'all')
      .option('--map <a=b>', 'map', collect)
      .option('--format <format>', 'format')
      .action(action(() => verb<[id: string | undefined], ListOptions>()));
    calls.length = 0;
    await p.parseAsync(['list', '--limit', '5', '--all', '--map', 'a=b', '--map', 'c=d'], { from: 'user' });
    expect(calls).toEqual([{ args: [undefined], opts: { limit: 5, all: true, map: ['a=b', 'c=d'] } }]);
  });

  it('rejects a declared flag the verb does not read, an option never declared, and a value of the wrong type', () => {
    const p = program();
    p.command('extra-flag')
      .option('--limit <n>', 'limit', positiveInt('--limit'))
      .option('--dry-run', 'declared here, missing in the verb type')
      // @ts-expect-error the verb's options type lacks dryRun
      .action(action(() => verb<[], { limit?: number }>()));

    p.command('undeclared')
      .option('--limit <n>', 'limit', positiveInt('--limit'))
      // @ts-expect-error the verb reads --all, which is not declared
      .action(action(() => verb<[], { limit?: number; all?: boolean }>()));

    p.command('unparsed')
      .option('--limit <n>', 'no parser: commander passes a string')
      // @ts-expect-error the verb expects a number
      .action(action(() => verb<[], { limit?: number }>()));

    p.command('required')
      .option('--port <n>', 'may be absent')
      // @ts-expect-error the verb treats an optional flag as always present
      .action(action(() => verb<[], { port: string }>()));

    p.command('choices')
      .option('--format <format>', 'any string')
      // @ts-expect-error the verb expects one of two values, commander passes any string
      .action(action(() => verb<[], { format?: 'table' | 'json' }>()));

    p.command('optional-arg')
      .argument('[id]')
      // @ts-expect-error the verb expects the id always present
      .action(action(() => verb<[id: string], Record<never, never>>()));

    expect(p.commands).toHaveLength(6);
  });
});
