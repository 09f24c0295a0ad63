import type { Command } from '@commander-js/extra-typings';
import type { ActionFactory } from '../loader.js';

export function defineSandbox(program: Command, action: ActionFactory): void {
  const sandbox = program.command('sandbox').description('run and inspect the emulated service on this machine');
  sandbox
    .command('start')
    .description('run the sandbox until interrupted')
    .option('--port <n>', 'port to listen on (0 picks a free one)', '0')
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--db <file>', 'SQLite file for the data (default: in the data folder)')
    .option('--memory', 'keep the data in memory only')
    .option('--token-ttl <seconds>', 'lifetime of access tokens (default 7200)')
    .option('--seed', 'create an OAuth app, an API token and a Custom Integration, print them once and save a `sandbox` profile')
    .action(action(() => import('./start.js')));
  sandbox
    .command('outbox')
    .description('list recorded side effects (welcome SMS, flow triggers and runs, revenue attribution)')
    .option('--type <type>', 'welcome_sms, flow_trigger, flow_run or revenue_attribution')
    .option('--after <seq>', 'only side effects after this sequence number')
    .option('--business-id <id>', 'only this business')
    .option('--limit <n>', 'only the N most recent (still printed oldest first)')
    .option('--follow', 'print each side effect as it is recorded, until interrupted (NDJSON with --json)')
    .option('--wait <type>', 'wait for a side effect of this type (one already recorded counts), print it and exit 0; exit 1 at --timeout')
    .option('--contact <id>', "only this contact's side effects")
    .option('--email <address>', 'with --follow or --wait: only side effects of the contact with this e-mail address')
    .option('--event-type <type>', "with --follow or --wait: only side effects whose trigger is this event type (a flow_run's event)")
    .option('--timeout <duration>', 'with --wait: how long to wait (30s, 2m; default 30s)')
    .action(action(() => import('./outbox.js')));
  sandbox
    .command('reset')
    .description('empty all data and faults of a running sandbox (asks first on a terminal)')
    .option('-y, --yes', 'do not ask (never asked without a terminal)')
    .option('--seed', 'then create new credentials as `sandbox start --seed` does, print them once and save the `sandbox` profile')
    .action(action(() => import('./reset.js')));
}
