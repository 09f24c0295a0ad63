/**
 * `svc help …`: a command path becomes that command's --help; `environment` and `exit-codes`
 * are topics of their own; anything else is an unknown command (exit 2), as with gh.
 */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';

export const HELP_TOPICS: Record<string, string> = {
  environment: `Environment variables (a flag on the command line wins over its variable):

  SVC_PROFILE            stored profile to use (--profile); default: the one
                         chosen with svc auth switch, else "default"
  SVC_BASE_URL           service address (--base-url)
  SVC_SANDBOX=1          run against the embedded sandbox (--sandbox)
  SVC_TOKEN              API token; used instead of any stored profile
  SVC_CLIENT_ID          OAuth client id (with SVC_CLIENT_SECRET); used instead
                         of a profile
  SVC_CLIENT_SECRET      OAuth client secret
  SVC_CLIENT_AUTH        how the client secret is sent: post (default) or basic
  SVC_SCOPES             scopes to request with the client credentials
                         (comma-separated)
  SVC_INTEGRATION_TOKEN  integration token of the orders commands
  SVC_MAX_RETRY_WAIT     longest Retry-After waited for, in seconds
                         (--max-retry-wait)
  SVC_DEBUG=1            HTTP trace on stderr, secrets redacted (--debug)
  SVC_CONFIG_DIR         folder of the profiles and credentials
  SVC_DATA_DIR           folder of the embedded sandbox's database and the
                         import journals
  NO_COLOR               no ANSI colour (--no-color)
  CI                     no prompt, spinner, colour or pager, as in a CI job
  SVC_PAGER              program that pages long terminal output (contacts
                         list, sandbox outbox); wins over PAGER; cat: none
                         (--no-pager)
  PAGER                  the same when SVC_PAGER is unset; empty: none; default
                         less -FRX
`,
  'exit-codes': `Exit codes:

  0    success
  1    the request failed (an API error other than below, a network error after
       retries)
  2    usage or validation error found before any request was sent
  3    authentication or authorization: 401, invalid_client, invalid_scope,
       insufficient_scope, not logged in, or fewer scopes granted than the
       command needs
  4    a bulk command finished, but some rows were rejected or failed (see its
       report)
  130  interrupted (Ctrl-C); a bulk command has saved its progress first
`,
};

export type HelpRequest = { argv: string[] } | { topic: string } | { unknown: string };

/** What `svc help WORDS…` asks for. */
export function resolveHelp(program: CommandUnknownOpts, words: string[]): HelpRequest {
  const path = words.filter((w) => !w.startsWith('-'));
  if (path.length === 1 && HELP_TOPICS[path[0] as string] !== undefined) return { topic: path[0] as string };
  let cmd = program;
  for (const word of path) {
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub || sub.name() === 'help') return { unknown: path.join(' ') };
    cmd = sub;
  }
  return { argv: [...path, '--help'] };
}

/**
 * True when `words` name the program or a command group (one with subcommands) and nothing else:
 * `svc` and `svc contacts` alone print that help on stdout and exit 0, as gh does.
 */
export function isGroupPath(program: CommandUnknownOpts, words: string[]): boolean {
  let cmd = program;
  for (const word of words) {
    if (word.startsWith('-')) return false;
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) return false;
    cmd = sub;
  }
  return cmd.commands.length > 0;
}
