import { Argument, type Command, Option } from '@commander-js/extra-typings';
import { SCOPES } from '../../contract/scopes.js';
import { type ActionFactory, completeWith, examples } from '../loader.js';

/**
 * The noun's verbs, declared as one commander chain: a list of declarations (names, options, help,
 * the module each action loads) with no branch in it. It is read as a table; split by verb it
 * only gained function boundaries and the same chain shape four times over.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a declaration list, not logic (see above)
export function defineAuth(program: Command, action: ActionFactory): void {
  const auth = program
    .command('auth')
    .description('log in, inspect and log out of the service; list and switch profiles')
    .addHelpText('after', examples(['svc auth login', 'svc auth status', 'svc auth list', 'svc auth switch staging']));
  auth
    .command('login')
    .description('store credentials in a profile: an API token or OAuth client credentials')
    .option('--with-token', 'read an API token from stdin')
    .option('--client-id <id>', 'OAuth client id (client credentials)')
    .option('--client-secret-stdin', 'read the OAuth client secret from stdin')
    .addOption(
      completeWith(new Option('--scopes <list>', 'space- or comma-separated scopes to request, e.g. "contacts_read orders_write"'), SCOPES),
    )
    .option('--require-scopes', 'fail (exit 3) when fewer scopes are granted than requested')
    .option('--basic-auth', 'send the client secret with HTTP Basic instead of the form body')
    .option('--keep-integration-token', "keep the profile's stored integration token (a new login drops it)")
    .option('--default-country <cc>', 'default country for phone numbers typed without +country code (e.g. US)')
    .addHelpText(
      'after',
      examples(
        [
          'svc auth login                                       # on a terminal: asks for the method and the secret',
          'svc auth login --with-token < token.txt              # an API token from a file',
          'printf %s "$SVC_CLIENT_SECRET" | svc auth login --client-id "$SVC_CLIENT_ID" --client-secret-stdin --scopes contacts_read,orders_write',
          'svc --profile staging --base-url https://staging.example.com auth login --with-token < staging-token.txt',
        ],
        'Secrets are never read from argv: pipe them in, or type them at the hidden prompt.',
      ),
    )
    .action(action(() => import('./login.js')));
  auth
    .command('status')
    .description('show the profile, base URL, method, where the credentials come from, granted scopes and token expiry')
    .option('--offline', 'do not check the credentials against the service')
    .addHelpText(
      'after',
      examples([
        'svc auth status',
        'svc auth status --offline --json                     # what is stored, without asking the service',
        'svc --profile staging auth status',
      ]),
    )
    .action(action(() => import('./status.js')));
  auth
    .command('list')
    .description('list the stored profiles: which one is in use and the default, base URL and method (never a secret)')
    // For the completion scripts: the profile names alone, one a line.
    .addOption(new Option('--names', 'print only the profile names').hideHelp())
    .addHelpText(
      'after',
      examples(
        ['svc auth list', "svc auth list --json | jq -r '.[] | select(.logged_in) | .name'"],
        '* marks the profile a command would use now; `svc auth switch NAME` changes the default.',
      ),
    )
    .action(action(() => import('./list.js')));
  auth
    .command('switch')
    .description('make a stored profile the default (used when neither --profile nor SVC_PROFILE names one)')
    .addArgument(completeWith(new Argument('<name>', 'the profile'), 'profiles'))
    .addHelpText(
      'after',
      examples(
        ['svc auth switch staging', 'svc auth switch default                              # back to the profile named "default"'],
        '--profile NAME and SVC_PROFILE still choose another profile for one command.',
      ),
    )
    .action(action(() => import('./switch.js')));
  auth
    .command('token')
    .description('print a valid access token (renewed if needed), for scripts')
    .addHelpText(
      'after',
      examples([
        'curl -H "Authorization: Bearer $(svc auth token)" "$SVC_BASE_URL/v1/contacts?limit=1"',
        'SVC_TOKEN=$(svc auth token) ./deploy-script.sh',
      ]),
    )
    .action(action(() => import('./token.js')));
  auth
    .command('logout')
    .description("forget the profile's credentials")
    .addHelpText('after', examples(['svc auth logout', 'svc --profile staging auth logout']))
    .action(action(() => import('./logout.js')));
}
