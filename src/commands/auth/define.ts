import { Argument, type Command, Option } from '@commander-js/extra-typings';
import { SCOPES } from '../../contract/scopes.js';
import { type ActionFactory, completeWith } from '../loader.js';

export function defineAuth(program: Command, action: ActionFactory): void {
  const auth = program.command('auth').description('log in, inspect and log out of the service');
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
    .option('--default-country <cc>', 'default country for phone numbers typed without +country code (e.g. US)')
    .action(action(() => import('./login.js')));
  auth
    .command('status')
    .description('show the profile, base URL, method, where the credentials come from, granted scopes and token expiry')
    .option('--offline', 'do not check the credentials against the service')
    .action(action(() => import('./status.js')));
  auth
    .command('list')
    .description('list the stored profiles: which one is in use and the default, base URL and method (never a secret)')
    // For the completion scripts: the profile names alone, one a line.
    .addOption(new Option('--names', 'print only the profile names').hideHelp())
    .action(action(() => import('./list.js')));
  auth
    .command('switch')
    .description('make a stored profile the default (used when neither --profile nor SVC_PROFILE names one)')
    .addArgument(completeWith(new Argument('<name>', 'the profile'), 'profiles'))
    .action(action(() => import('./switch.js')));
  auth
    .command('token')
    .description('print a valid access token (renewed if needed), for scripts')
    .action(action(() => import('./token.js')));
  auth
    .command('logout')
    .description("forget the profile's credentials")
    .action(action(() => import('./logout.js')));
}
