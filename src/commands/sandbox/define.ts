import { type Command, Option } from '@commander-js/extra-typings';
import { type ActionFactory, completeWith, examples } from '../loader.js';

const sideEffectTypes = async () => (await import('./outbox.js')).SIDE_EFFECT_TYPES;

export function defineSandbox(program: Command, action: ActionFactory): void {
  const sandbox = program
    .command('sandbox')
    .description('run and inspect the emulated service on this machine')
    .addHelpText(
      'after',
      examples(['svc sandbox start --seed', 'svc --sandbox contacts list', 'svc --sandbox sandbox outbox --type welcome_sms']),
    );
  sandbox
    .command('start')
    .description('run the sandbox until interrupted')
    .option('--port <n>', 'port to listen on (0 picks a free one)', '0')
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--db <file>', 'SQLite file for the data (default: in the data folder)')
    .option('--memory', 'keep the data in memory only')
    .option('--token-ttl <seconds>', 'lifetime of access tokens (default 7200)')
    .option(
      '--seed',
      'create an OAuth app, an API token and a Custom Integration, print them once and save them in the `sandbox` profile (`sandbox-2`, … while that one serves a running sandbox; --profile NAME to choose)',
    )
    .addHelpText(
      'after',
      examples([
        'svc sandbox start --seed          # the address, the credentials once, a profile',
        'svc sandbox start --port 8787 --memory',
        'svc sandbox start --json --port 0 > sandbox.json &   # in a script: read base_url from the JSON line',
      ]),
    )
    .action(action(() => import('./start.js')));
  sandbox
    .command('outbox')
    .description('list recorded side effects (welcome SMS, flow triggers and runs, revenue attribution)')
    .addOption(completeWith(new Option('--type <type>', 'welcome_sms, flow_trigger, flow_run or revenue_attribution'), sideEffectTypes))
    .option('--after <seq>', 'only side effects after this sequence number')
    .option('--business-id <id>', 'only this business')
    .option('--limit <n>', 'only the N most recent (still printed oldest first)')
    .option('--follow', 'print each side effect as it is recorded, until interrupted (NDJSON with --json)')
    .addOption(
      completeWith(
        new Option(
          '--wait <type>',
          'wait for a side effect of this type (one already recorded counts), print it and exit 0; exit 1 at --timeout',
        ),
        sideEffectTypes,
      ),
    )
    .option('--contact <id>', "only this contact's side effects")
    .option('--email <address>', 'with --follow or --wait: only side effects of the contact with this e-mail address')
    .option('--event-type <type>', "with --follow or --wait: only side effects whose trigger is this event type (a flow_run's event)")
    .option('--timeout <duration>', 'with --wait: how long to wait (30s, 2m; default 30s)')
    .option('--fields <names>', 'print only these fields, in this order (e.g. seq,type,contact_id; names as in --json)')
    .addHelpText(
      'after',
      examples([
        'svc --sandbox sandbox outbox --type welcome_sms',
        'svc sandbox outbox --limit 20 --json',
        'svc sandbox outbox --type welcome_sms --fields seq,contact_id,created_at',
        'svc sandbox outbox --wait flow_run --email ada@example.com --timeout 30s --json',
        'svc sandbox outbox --follow',
      ]),
    )
    .action(action(() => import('./outbox.js')));
  sandbox
    .command('reset')
    .description('empty all data and faults of a running sandbox (asks first on a terminal)')
    .option('-y, --yes', 'do not ask (never asked without a terminal)')
    .option(
      '--seed',
      'then create new credentials as `sandbox start --seed` does, print them once and save them in the profile of this sandbox',
    )
    .addHelpText(
      'after',
      examples([
        'svc sandbox reset              # asks first on a terminal',
        'svc sandbox reset --yes',
        'svc sandbox reset --yes --seed  # then new credentials, saved in the sandbox profile',
        'svc --sandbox sandbox reset --yes',
      ]),
    )
    .action(action(() => import('./reset.js')));
}
