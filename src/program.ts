/**
 * The commander tree of the contract (cli.md). Options are declared here and in each noun's
 * define.ts; every action loads its implementation only when it runs, so `svc --help` and
 * `svc --version` load no HTTP, CSV, prompt, spinner or sandbox code.
 */
import { Command, CommanderError, type CommandUnknownOpts, Option } from '@commander-js/extra-typings';
import { defineApi } from './commands/api/define.js';
import { defineAuth } from './commands/auth/define.js';
import { defineCompletion } from './commands/completion/define.js';
import { defineContacts } from './commands/contacts/define.js';
import { defineEvents } from './commands/events/define.js';
import { type ActionFactory, type CommandModule, completeWith, examples } from './commands/loader.js';
import { defineOrders } from './commands/orders/define.js';
import { defineSandbox } from './commands/sandbox/define.js';
import { escapeControls } from './io/escape.js';
import type { IOStreams } from './io/streams.js';
import type { GlobalFlags } from './store/settings.js';

declare const __SVC_VERSION__: string;

export { CommanderError };

export interface ProgramDeps {
  io: IOStreams;
  /**
   * Loads a verb and runs it. The action factory's type has already matched the verb's `run` to
   * its command's arguments and options, so here they travel as unknown.
   */
  run(load: () => Promise<CommandModule<unknown[], unknown>>, args: unknown[], opts: unknown, flags: GlobalFlags): Promise<void>;
  /** How commander's own usage errors are printed (main.ts prints the error JSON with --json). */
  outputError?: (message: string, write: (s: string) => void) => void;
}

const GLOBAL_FLAG_KEYS = [
  'profile',
  'baseUrl',
  'sandbox',
  'json',
  'debug',
  'color',
  'pager',
  'quiet',
  'insecure',
  'maxRetryWait',
  'maxOutage',
] as const;

export function buildProgram(deps: ProgramDeps): Command {
  const program = new Command('svc');
  program
    .description('Contacts, orders and events of the marketing-automation service, from your terminal — with an embedded sandbox.')
    .version(__SVC_VERSION__, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [command]', 'show help for a command')
    // Subcommands inherit this (commander copies the help settings to each new command): their
    // help lists the global flags (--json, --profile, …) under "Global Options:", as gh does.
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (s) => deps.io.stdout.write(s),
      writeErr: (s) => deps.io.stderr.write(escapeControls(s)),
      ...(deps.outputError ? { outputError: deps.outputError } : {}),
    })
    .addOption(completeWith(new Option('--profile <name>', 'stored profile (account) to use [env: SVC_PROFILE]'), 'profiles'))
    .addOption(new Option('--base-url <url>', 'service address [env: SVC_BASE_URL]'))
    .addOption(new Option('--sandbox', 'run against the embedded sandbox (no login needed) [env: SVC_SANDBOX=1]'))
    .addOption(new Option('--json', 'machine-readable output on stdout; no colour, spinner or prompt'))
    .addOption(new Option('--debug', 'HTTP trace on stderr, secrets redacted [env: SVC_DEBUG=1]'))
    .addOption(new Option('--no-color', 'no ANSI colour [env: NO_COLOR]'))
    .addOption(new Option('--no-pager', 'never send long output at a terminal through the pager [env: SVC_PAGER=cat]'))
    .addOption(new Option('--quiet', 'only errors on stderr'))
    .addOption(new Option('--insecure', 'allow plain http:// to a host other than loopback'))
    .addOption(
      new Option(
        '--max-retry-wait <seconds>',
        'longest Retry-After the client waits for before failing (default 120) [env: SVC_MAX_RETRY_WAIT]',
      ),
    )
    .addOption(
      new Option(
        '--max-outage <duration>',
        'longest outage a bulk run waits out before it stops to resume later (default 15m; e.g. 90s, 30m) [env: SVC_MAX_OUTAGE]',
      ),
    );

  const action: ActionFactory = (load) =>
    async function (this: CommandUnknownOpts) {
      const all = this.optsWithGlobals();
      const flags: GlobalFlags = {};
      for (const k of GLOBAL_FLAG_KEYS) if (all[k] !== undefined) (flags as Record<string, unknown>)[k] = all[k];
      // --no-color defaults color to true; only an explicit --no-color turns it off.
      if (all.color !== false) delete flags.color;
      if (all.pager !== false) delete flags.pager;
      await deps.run(load, this.processedArgs, { ...this.opts() }, flags);
    };

  defineAuth(program, action);
  defineContacts(program, action);
  defineOrders(program, action);
  defineEvents(program, action);
  defineApi(program, action);
  defineSandbox(program, action);
  defineCompletion(program, action);
  program.addHelpText(
    'after',
    () =>
      `${examples([
        'svc --sandbox contacts create --email ada@example.com --email-consent subscribed   # try it, no account needed',
        'svc auth login',
        'svc contacts list --email-consent subscribed --all --format csv > subscribed.csv',
        'svc help environment                       # the SVC_* variables; also: svc help exit-codes',
      ])}\n\nEvery command:\n${listCommands(program)}\nRun \`svc <command> --help\` for its options.`,
  );
  return program;
}

/** One line per leaf command ("svc contacts list  …"), so the top-level help shows the whole tree. */
function listCommands(program: CommandUnknownOpts): string {
  const lines: Array<[string, string]> = [];
  const walk = (cmd: CommandUnknownOpts, prefix: string) => {
    for (const sub of cmd.commands) {
      if (sub.name() === 'help') continue;
      const name = `${prefix} ${sub.name()}`;
      if (sub.commands.length > 0) walk(sub, name);
      else
        lines.push([
          `${name}${sub.registeredArguments.map((a) => (a.required ? ` <${a.name()}>` : ` [${a.name()}]`)).join('')}`,
          sub.description(),
        ]);
    }
  };
  walk(program, 'svc');
  const width = Math.max(...lines.map(([n]) => n.length));
  return lines.map(([n, d]) => `  ${n.padEnd(width)}  ${d}`).join('\n');
}
