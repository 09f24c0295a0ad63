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
import { didYouMean } from './util/did-you-mean.js';

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
      // Help is wrapped between words at the terminal's width (80 off a terminal), as commander does for the real streams.
      getOutHelpWidth: () => helpWidth(deps.io, deps.io.stdoutIsTTY),
      getErrHelpWidth: () => helpWidth(deps.io, deps.io.stderrIsTTY),
      // A bad value of a flag with choices (--format jsn) gets the choice probably meant.
      outputError: (message, write) =>
        (deps.outputError ?? ((m, w) => w(m)))(withUnknownSuggestion(withChoiceSuggestion(message), program), write),
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
  // The root's help lists every command once, as the tree below (commander's own list of the
  // nouns alone is hidden for the root only: its subcommands keep the settings copied above).
  program.configureHelp({ showGlobalOptions: true, visibleCommands: () => [] });
  program.addHelpText(
    'after',
    () =>
      `\nCommands:\n${listCommands(program, helpWidth(deps.io, deps.io.stdoutIsTTY))}\n${examples([
        '# try it, no account needed:',
        'svc --sandbox contacts create --email ada@example.com --email-consent subscribed',
        'svc auth login',
        'svc contacts list --email-consent subscribed --all --format csv > out.csv',
        'svc help environment         # the SVC_* variables; also: svc help exit-codes',
      ])}\n\nRun \`svc <command> --help\` for its options.`,
  );
  return program;
}

/** Commander's "argument 'jsn' is invalid. Allowed choices are table, json, …." with `(did you mean "json"?)` added. */
export function withChoiceSuggestion(message: string): string {
  const m = /argument '([^']*)' is invalid\. Allowed choices are (.+)\.\s*$/.exec(message);
  if (!m) return message;
  const hint = didYouMean(m[1] as string, (m[2] as string).split(', '));
  return hint ? `${message.trimEnd()}${hint}\n` : message;
}

/** Flags that take a secret the command line must not carry, and the one that reads it from stdin. */
const SECRET_FLAGS: Record<string, string> = {
  '--client-secret': '--client-secret-stdin',
  '--integration-token': '--integration-token-stdin',
  '--token': '--with-token',
  '--api-token': '--with-token',
};

/**
 * Commander's "unknown command" at the top level suggests nothing (the root's command list is
 * hidden from its help, which is where commander looks): the noun probably meant is added, as
 * commander does for subcommands. A secret flag that does not exist points to its stdin form.
 */
export function withUnknownSuggestion(message: string, program: CommandUnknownOpts): string {
  const command = /^error: unknown command '([^']*)'\s*$/.exec(message);
  if (command) {
    const names = program.commands.map((c) => c.name());
    const hint = didYouMean(command[1] as string, names);
    return hint ? `${message.trimEnd()}\n(Did you mean ${/"(.*)"/.exec(hint)?.[1]}?)\n` : message;
  }
  const option = /^error: unknown option '([^'=]*)(=[^']*)?'\s*$/.exec(message);
  const stdin = option ? SECRET_FLAGS[option[1] as string] : undefined;
  if (stdin) {
    // Without the value given with `=`: it is the secret.
    return `error: unknown option '${option?.[1]}'\n(a secret never goes on the command line, where other users and the shell history see it: pipe it to ${stdin})\n`;
  }
  return message;
}

/** Help's width: the terminal's (at least 40), or 80 when the stream is not a terminal. */
function helpWidth(io: IOStreams, tty: boolean): number {
  return tty && io.columns ? Math.max(40, io.columns) : 80;
}

/**
 * One item per leaf command ("contacts list  …"), its description wrapped between words within
 * `width` (commander's own item layout), so the top-level help shows the whole tree, once.
 */
function listCommands(program: CommandUnknownOpts, width: number): string {
  const lines: Array<[string, string]> = [];
  const walk = (cmd: CommandUnknownOpts, prefix: string) => {
    for (const sub of cmd.commands) {
      if (sub.name() === 'help') continue;
      const name = prefix ? `${prefix} ${sub.name()}` : sub.name();
      if (sub.commands.length > 0) walk(sub, name);
      else
        lines.push([
          `${name}${sub.registeredArguments.map((a) => (a.required ? ` <${a.name()}>` : ` [${a.name()}]`)).join('')}`,
          sub.description(),
        ]);
    }
  };
  walk(program, '');
  lines.push(['help [command]', 'help for a command; also: svc help environment, svc help exit-codes']);
  const helper = program.createHelp();
  helper.helpWidth = width;
  const termWidth = Math.max(...lines.map(([n]) => n.length));
  return lines.map(([n, d]) => helper.formatItem(n, termWidth, d, helper)).join('\n');
}
