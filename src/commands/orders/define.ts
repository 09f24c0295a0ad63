import { Argument, type Command, Option } from '@commander-js/extra-typings';
import { type ActionFactory, collect, completeWith, concurrency, examples, planReadOption } from '../loader.js';

const orderPresets = async () =>
  (await import('../../importer/presets/family.js'))
    .listPresets((await import('../../importer/mapping.js')).ORDER_MAPPING_SCHEMA)
    .map((p) => p.name ?? '');

/**
 * The noun's verbs, declared as one commander chain: a list of declarations (names, options, help,
 * the module each action loads) with no branch in it. It is read as a table; split by verb it
 * only gained function boundaries and the same chain shape four times over.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a declaration list, not logic (see above)
export function defineOrders(program: Command, action: ActionFactory): void {
  const orders = program
    .command('orders')
    .description('create or update orders, one or a whole CSV file')
    .addHelpText(
      'after',
      examples([
        'svc orders upsert --order-id 1001 --total 49.90 --currency EUR --order-date 2026-03-01 --email ada@example.com',
        'svc orders import orders.csv --initial-sync --report report.csv',
        'svc orders presets',
      ]),
    );
  orders
    .command('upsert')
    .description('create (201) or update (200) one order')
    .option('--order-id <id>', 'order id (the upsert key)')
    .option('--total <amount>', 'order total, e.g. 49.90')
    .option('--currency <code>', 'ISO 4217 currency code, e.g. EUR')
    .option('--order-date <date>', 'RFC 3339 date-time or YYYY-MM-DD')
    .option('--email <email>', 'customer email')
    .option('--phone <phone>', 'customer phone')
    .option('--accepts-email-marketing', 'the customer accepts email marketing')
    .option('--accepts-sms-marketing', 'the customer accepts SMS marketing (needs --phone)')
    .option('--initial-sync', 'historical import: no flows, automations or revenue attribution')
    .option('--input <file>', 'read the order as JSON from a file (- for stdin)')
    .option('--integration-token-stdin', 'read the integration token from stdin')
    .option('--default-country <cc>', 'country for a phone without country code')
    .addHelpText(
      'after',
      examples(
        [
          'svc orders upsert --order-id 1001 --total 49.90 --currency EUR --order-date 2026-03-01 --email ada@example.com',
          'svc orders upsert --order-id 1002 --total 12 --currency USD --order-date 2026-03-02T10:00:00Z --phone "(415) 555-0100" --default-country US --accepts-sms-marketing',
          'svc orders upsert --input order.json --json',
        ],
        'The integration token comes from SVC_INTEGRATION_TOKEN, --integration-token-stdin or the profile.',
      ),
    )
    .action(action(() => import('./upsert.js')));
  orders
    .command('import')
    .description('import orders from a CSV file (- for stdin), with an exact created/updated/rejected report')
    .argument('<file>', 'CSV file, or - for stdin')
    .option('--initial-sync', 'historical import: no flows, automations or revenue attribution')
    .option('--live', 'send orders dated over 30 days ago without --initial-sync: their flows and attribution are wanted')
    .option('--concurrency <n>', 'most requests in flight (default 16; lowered automatically on 429)', concurrency)
    .option('--report <file>', 'write a CSV report: line,order_id,outcome,status,error_code,message')
    .option('--rejects <file>', "write the rejected rows back in the input's own format, with error columns, to fix and import again")
    .option('--rejects-include-failed', 'with --rejects: also write the rows that failed (gave up after retries)')
    .option('--dry-run', 'validate every row and list duplicate order ids without sending')
    .option('--plan', 'read the account and show the contacts the orders would create and the side effects; send nothing')
    .option('--plan-out <file>', "with --plan: write every row's planned outcome as CSV")
    .addOption(planReadOption())
    .option('--resume', 'continue an interrupted import of the same file with the same options')
    .option('--map <field=column>', 'read an order field from a differently named column, or column #N by number (repeatable)', collect)
    .addOption(
      completeWith(
        new Option(
          '--preset <name>',
          'the shop export it is, when its header is not recognised (svc orders presets lists them); none: no recognition',
        ),
        orderPresets,
      ),
    )
    .option('--map-file <file>', 'a saved mapping (JSON: columns per field, date order, delimiter, default country)')
    .addOption(
      completeWith(new Option('--date-order <MDY|DMY>', 'how numeric dates such as 03/04/2024 are read (never guessed)'), ['MDY', 'DMY']),
    )
    .option(
      '--date-format <pattern>',
      'how order dates are written, e.g. "MMM D, YYYY h:mm:ss A", DD/MM/YYYY, M/D/YY, or excel (serial numbers)',
    )
    .option('--timezone <zone>', 'the zone of times written without an offset, e.g. Europe/Berlin (default UTC)')
    .option('--set <field=value>', 'a value every order gets, for what the export lacks, e.g. --set currency=EUR (repeatable)', collect)
    .option('--default-country <cc>', 'country for phone numbers without a country code (e.g. US)')
    .option('--delimiter <char>', 'field delimiter (default: detected among , ; and tab)')
    .option('--encoding <name>', "the file's encoding: utf-8 (default; UTF-16LE found by its BOM), windows-1252, latin1, utf-16le…")
    .option('--integration-token-stdin', 'read the integration token from stdin')
    .option('--journal <file>', 'where progress is recorded for --resume (default: next to the report, or in the data folder)')
    .addHelpText(
      'after',
      examples(
        [
          'svc orders import orders.csv --initial-sync --report report.csv   # years of history: no flows, no revenue attribution',
          'svc orders import export.csv --dry-run                             # validate, list duplicate order ids, send nothing',
          'svc orders import export.csv --map order_id="Order Number" --map total="Grand Total" --default-country US',
          'svc orders import orders_export.csv --initial-sync                  # a shop export: its preset recognised from the header',
          'svc orders import export.csv --map-file my-shop.json --date-order DMY',
          'svc orders import orders.csv --resume                              # after Ctrl-C, a crash or a sleeping laptop',
        ],
        'The integration token comes from SVC_INTEGRATION_TOKEN, --integration-token-stdin or the profile.',
      ),
    )
    .action(action(() => import('./import.js')));
  orders
    .command('presets')
    .description('list the shipped mappings for shop exports (--preset NAME), or print one to adapt: presets show NAME')
    .addArgument(completeWith(new Argument('[show]', 'show: print one preset as a mapping file'), ['show']))
    .addArgument(completeWith(new Argument('[name]', 'the preset to print'), orderPresets))
    .addHelpText(
      'after',
      examples([
        'svc orders presets',
        'svc orders presets show shopify > my-shop.json             # a mapping file to adapt for --map-file',
      ]),
    )
    .action(action(() => import('./presets.js')));
}
