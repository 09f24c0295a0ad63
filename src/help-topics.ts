/**
 * `svc help …`: a command path becomes that command's --help; `environment` and `exit-codes`
 * are topics of their own; anything else is an unknown command (exit 2), as with gh.
 */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';

/** The variables svc reads: name, then what it does (laid out within 80 columns by `variablesTopic`). */
const VARIABLES: ReadonlyArray<readonly [string, string]> = [
  ['SVC_PROFILE', 'stored profile to use (--profile); default: the one chosen with svc auth switch, else "default"'],
  ['SVC_BASE_URL', 'service address (--base-url)'],
  ['SVC_SANDBOX=1', 'run against the embedded sandbox (--sandbox)'],
  [
    'SVC_SANDBOX_ADMIN_TOKEN',
    'admin token of a sandbox started with --admin-token (svc sandbox commands send it; sandbox start uses it instead of making one up)',
  ],
  ['SVC_TOKEN', 'API token; used instead of any stored profile'],
  ['SVC_CLIENT_ID', 'OAuth client id (with SVC_CLIENT_SECRET); used instead of a profile'],
  ['SVC_CLIENT_SECRET', 'OAuth client secret'],
  ['SVC_CLIENT_AUTH', 'how the client secret is sent: post (default) or basic'],
  ['SVC_SCOPES', 'scopes to request with the client credentials (comma-separated)'],
  ['SVC_INTEGRATION_TOKEN', 'integration token of the orders commands'],
  ['SVC_MAX_RETRY_WAIT', 'longest Retry-After waited for, in seconds (--max-retry-wait)'],
  ['SVC_MAX_OUTAGE', 'longest outage a bulk run waits out, e.g. 15m (--max-outage)'],
  [
    'SVC_PROGRESS_INTERVAL',
    'seconds between two progress lines of a bulk run outside a terminal (default 10; 0: none); set, also with --json',
  ],
  ['SVC_REQUEST_PATIENCE', 'how long a list, get or single write waits with no answer at all, in seconds (default 60)'],
  ['SVC_REQUEST_TIMEOUT', 'longest one attempt of a request may take, answer included, in seconds (default 120)'],
  ['HTTPS_PROXY', 'proxy for https:// addresses (http://[user:password@]host:port); https_proxy wins when both are set'],
  ['HTTP_PROXY', 'proxy for http:// addresses, and for https:// ones without HTTPS_PROXY; http_proxy wins when both are set'],
  [
    'NO_PROXY',
    'hosts reached without the proxy, comma-separated (example.com also covers its subdomains, host:port one port, * all); no_proxy wins. --sandbox is always reached directly',
  ],
  ['NODE_EXTRA_CA_CERTS', 'a PEM file of extra trusted CAs (a company CA), as for any Node program'],
  ['SVC_DEBUG=1', 'HTTP trace on stderr, secrets redacted (--debug)'],
  ['SVC_CONFIG_DIR', 'folder of the profiles and credentials'],
  ['SVC_DATA_DIR', "folder of the embedded sandbox's database and the import journals"],
  ['NO_COLOR', 'no ANSI colour (--no-color)'],
  ['CI', 'no prompt, spinner, colour or pager, as in a CI job'],
  ['COLUMNS', "the width messages (errors, hints, notes) are wrapped to, even into a pipe; default: the terminal's, none into a pipe"],
  ['SVC_PAGER', 'program that pages long terminal output (contacts list, sandbox outbox); wins over PAGER; cat: none (--no-pager)'],
  ['PAGER', 'the same when SVC_PAGER is unset; empty: none; default less -FRX'],
];

/** `  NAME  text…` items, the text wrapped between words so that no line passes 80 columns. */
function variablesTopic(): string {
  const nameWidth = Math.max(...VARIABLES.map(([n]) => n.length));
  const room = 80 - 2 - nameWidth - 2;
  const lines: string[] = [];
  for (const [name, text] of VARIABLES) {
    let cur = '';
    const wrapped: string[] = [];
    for (const word of text.split(' ')) {
      if (cur && cur.length + 1 + word.length > room) {
        wrapped.push(cur);
        cur = word;
      } else cur = cur ? `${cur} ${word}` : word;
    }
    wrapped.push(cur);
    for (const [i, w] of wrapped.entries()) lines.push(`  ${(i === 0 ? name : '').padEnd(nameWidth)}  ${w}`);
  }
  return lines.join('\n');
}

export const HELP_TOPICS: Record<string, string> = {
  environment: `Environment variables (a flag on the command line wins over its variable):

${variablesTopic()}
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
