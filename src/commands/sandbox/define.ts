import { type Command, Option } from '@commander-js/extra-typings';
import { type ActionFactory, completeWith, examples } from '../loader.js';

const sideEffectTypes = async () => (await import('./outbox.js')).SIDE_EFFECT_TYPES;

/**
 * The noun's verbs, declared as one commander chain: a list of declarations (names, options, help,
 * the module each action loads) with no branch in it. It is read as a table; split by verb it
 * only gained function boundaries and the same chain shape four times over.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a declaration list, not logic (see above)
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
    .option(
      '--port <n>',
      "port to listen on (0 picks a free one; default: the port of the sandbox's profile, else 8787, a free one when taken)",
    )
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--db <file>', 'SQLite file for the data (default: in the data folder)')
    .option('--memory', 'keep the data in memory only')
    .option('--token-ttl <seconds>', 'lifetime of access tokens (default 7200)')
    .option(
      '--seed',
      'create an OAuth app, an API token and a Custom Integration, print them once and save them in the `sandbox` profile (`sandbox-2`, … while that one serves a running sandbox; --profile NAME to choose)',
    )
    .option(
      '--log-size <n>',
      'requests kept in the request log (default 10000; 0 turns it off), or a byte budget such as 16MiB (default 64MiB)',
    )
    .option(
      '--allowed-host <name>',
      'one more Host name the dashboard and admin API answer to (a tunnel, a proxy); repeat for more',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--admin-token',
      'require an admin token (made up, or SVC_SANDBOX_ADMIN_TOKEN) for the dashboard and admin API; needed to reach them from another machine',
    )
    .addHelpText(
      'after',
      examples([
        'svc sandbox start --seed          # the address, the credentials once, a profile',
        'svc sandbox start --port 9000 --memory',
        'svc sandbox start --host 0.0.0.0 --admin-token   # the dashboard from another machine, with the token printed once',
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
    .command('logs')
    .description('the requests the sandbox answered: status, credential, error and why it was refused (newest last)')
    .option('--follow', 'print each request as it is answered, until interrupted (NDJSON with --json)')
    .option('--status <status>', 'only this status (401) or class (4xx)')
    .option('--path <prefix>', 'only paths starting with this prefix (/v1/orders)')
    .option('--method <method>', 'only this HTTP method')
    .option('--credential <id-or-name>', 'only requests made with this API token or OAuth app (id or name)')
    .option('--request-id <id>', 'show this request in full: bodies, the error, which rule refused it and what to change')
    .option('--since <when>', 'only requests since a duration ago (10m, 30s) or a date-time')
    .addOption(
      new Option('--kind <kind>', 'api (service and token calls, the default), service, token, admin or all').choices([
        'api',
        'service',
        'token',
        'admin',
        'all',
      ]),
    )
    .option('--business-id <id>', 'only this business')
    .option('--limit <n>', 'the N most recent (default 20, at most 1000)')
    .option('--search <text>', 'only requests whose id, path, bodies or people contain this text (an e-mail, a phone, an id)')
    .option('--curl', 'with --request-id: print the request as a curl command (secrets as variables such as $SVC_TOKEN)')
    .option('--har <file>', 'export every matching request to FILE as HAR 1.2 (- for stdout), oldest first')
    .option('--ndjson', 'export every matching request as NDJSON on stdout, oldest first')
    .addHelpText(
      'after',
      examples([
        'svc sandbox logs --status 4xx',
        'svc sandbox logs --search ada@example.com',
        'svc sandbox logs --request-id req_0f3a9c2e00000042',
        'svc sandbox logs --request-id req_0f3a9c2e00000042 --curl',
        'svc sandbox logs --har session.har',
        'svc sandbox logs --follow --path /v1/orders',
        'svc sandbox logs --since 10m --json',
      ]),
    )
    .action(action(() => import('./logs.js')));
  sandbox
    .command('deprecations')
    .description('deprecated or removed usages the sandbox saw, per credential (exit 1 with --fail-on-any when there is one)')
    .option('--business-id <id>', 'only this business')
    .option('--fail-on-any', 'exit 1 when any deprecated or removed usage was seen (for CI)')
    .addHelpText('after', examples(['svc sandbox deprecations', 'svc sandbox deprecations --json --fail-on-any']))
    .action(action(() => import('./deprecations.js')));
  const snapshot = sandbox
    .command('snapshot')
    .description('save and restore consistent copies of the whole sandbox state (for CI: restore between test cases)')
    .addHelpText(
      'after',
      examples([
        'svc sandbox snapshot save seeded',
        'svc sandbox snapshot restore seeded',
        'svc sandbox snapshot list',
        'svc sandbox snapshot delete seeded',
      ]),
    );
  const snapshotModule = () => import('./snapshot.js');
  snapshot
    .command('save')
    .description('save the whole state under NAME (replaces a snapshot of that name)')
    .argument('<name>', 'letters, digits, dots, dashes, underscores (64 at most)')
    .addHelpText('after', examples(['svc sandbox snapshot save seeded', 'svc --sandbox sandbox snapshot save before-import']))
    .action(action(async () => ({ run: (await snapshotModule()).save })));
  snapshot
    .command('restore')
    .description('replace the whole state with snapshot NAME, atomically (requests wait)')
    .argument('<name>', 'a saved snapshot')
    .addHelpText('after', examples(['svc sandbox snapshot restore seeded']))
    .action(action(async () => ({ run: (await snapshotModule()).restore })));
  snapshot
    .command('list')
    .description('the saved snapshots')
    .addHelpText('after', examples(['svc sandbox snapshot list', 'svc sandbox snapshot list --json']))
    .action(action(async () => ({ run: (await snapshotModule()).list })));
  snapshot
    .command('delete')
    .description('delete snapshot NAME')
    .argument('<name>', 'a saved snapshot')
    .addHelpText('after', examples(['svc sandbox snapshot delete seeded']))
    .action(action(async () => ({ run: (await snapshotModule()).remove })));
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
  sandbox
    .command('replay')
    .description('send a logged request again, as a new request marked as its replay (linked both ways in the log)')
    .argument('<request-id>', 'a request id from `svc sandbox logs` (X-Request-Id)')
    .addHelpText('after', examples(['svc sandbox replay req_0f3a9c2e00000042', 'svc sandbox replay req_0f3a9c2e00000042 --json']))
    .action(action(() => import('./replay.js')));
  const flows = sandbox
    .command('flows')
    .description('the flows of the sandbox (automations run by events and orders): list, show, enable, disable')
    .addHelpText(
      'after',
      examples(['svc sandbox flows list', 'svc sandbox flows show flow_1a2b3c', 'svc sandbox flows disable flow_1a2b3c']),
    );
  const flowsModule = () => import('./flows.js');
  flows
    .command('list')
    .description('every flow of a business, with its runs and last run')
    .option('--business-id <id>', 'this business (default biz_default)')
    .addHelpText('after', examples(['svc sandbox flows list', 'svc sandbox flows list --json']))
    .action(action(async () => ({ run: (await flowsModule()).list })));
  flows
    .command('show')
    .description('one flow and its most recent runs')
    .argument('<flow-id>', 'a flow id (flow_…)')
    .addHelpText('after', examples(['svc sandbox flows show flow_1a2b3c']))
    .action(action(async () => ({ run: (await flowsModule()).show })));
  flows
    .command('enable')
    .description('let a flow run again')
    .argument('<flow-id>', 'a flow id (flow_…)')
    .addHelpText('after', examples(['svc sandbox flows enable flow_1a2b3c']))
    .action(action(async () => ({ run: (await flowsModule()).enable })));
  flows
    .command('disable')
    .description('stop a flow from running (its past runs stay)')
    .argument('<flow-id>', 'a flow id (flow_…)')
    .addHelpText('after', examples(['svc sandbox flows disable flow_1a2b3c']))
    .action(action(async () => ({ run: (await flowsModule()).disable })));
}
