import { type Command, Option, type OptionValues } from '@commander-js/extra-typings';
import { EMAIL_CONSENT_VALUES, EMAIL_CONSENT_WRITABLE, SMS_CONSENT_VALUES, SMS_CONSENT_WRITABLE } from '../../contract/consent.js';
import { OUTPUT_FORMATS } from '../../io/output-format.js';
import { type ActionFactory, collect, completeWith, concurrency, examples, planReadOption, positiveInt } from '../loader.js';

const contactPresets = async () =>
  (await import('../../importer/presets/family.js'))
    .listPresets((await import('../../importer/contact-mapping.js')).CONTACT_MAPPING_SCHEMA)
    .map((p) => p.name ?? '');

function contactFieldOptions<Args extends unknown[], Opts extends OptionValues>(cmd: Command<Args, Opts>) {
  return cmd
    .option('--email <email>', 'email address')
    .option('--phone <phone>', 'phone number (E.164, or local with --default-country)')
    .option('--first-name <name>', 'first name')
    .option('--last-name <name>', 'last name')
    .addOption(
      completeWith(
        new Option('--email-consent <value>', 'email consent: subscribed, unsubscribed, never_subscribed, suppressed'),
        EMAIL_CONSENT_WRITABLE,
      ),
    )
    .addOption(
      completeWith(
        new Option('--sms-consent <value>', 'SMS consent: subscribed, unsubscribed, never_subscribed, single_opt_in'),
        SMS_CONSENT_WRITABLE,
      ),
    )
    .option('--no-welcome-sms', 'do not send the welcome SMS when SMS consent becomes subscribed')
    .option('--default-country <cc>', 'country for phone numbers without a country code (e.g. US, GB)');
}

/** The options of a verb that also runs on a list of ids (--ids-file), on the bulk engine. */
function idsFileOptions<Args extends unknown[], Opts extends OptionValues>(cmd: Command<Args, Opts>, verb: string) {
  return cmd
    .option('--ids-file <file>', `${verb} every id in a file (one per line, - for stdin)`)
    .option('--plan', 'with --ids-file: read the contacts and show what each id would become; send nothing')
    .option('--plan-out <file>', "with --plan: write every id's planned outcome as CSV")
    .addOption(planReadOption())
    .option('--report <file>', 'with --ids-file: write a CSV report of each id')
    .option('--rejects <file>', 'with --ids-file: write the rejected ids back (id list with error columns) to fix and run again')
    .option('--rejects-include-failed', 'with --rejects: also write the ids that failed (gave up after retries)')
    .option('--dry-run', 'with --ids-file: check every id, send nothing (exit 4 if one would be rejected)')
    .option('--resume', 'with --ids-file: continue an interrupted run on the same file with the same options')
    .option(
      '--journal <file>',
      'with --ids-file: where progress is recorded for --resume (default: next to the report, or in the data folder)',
    )
    .option('--encoding <name>', "with --ids-file: the file's encoding (default utf-8)");
}

/** --fields in the help: an example and where the names come from (the contact's API fields). */
const FIELDS_EXAMPLE = 'e.g. id,email,sms_consent; names as in --format csv or --json';

/**
 * The noun's verbs, declared as one commander chain: a list of declarations (names, options, help,
 * the module each action loads) with no branch in it. It is read as a table; split by verb it
 * only gained function boundaries and the same chain shape four times over.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a declaration list, not logic (see above)
export function defineContacts(program: Command, action: ActionFactory): void {
  const contacts = program
    .command('contacts')
    .description('list, create, change, unsubscribe and delete contacts')
    .addHelpText(
      'after',
      examples([
        'svc contacts list --email-consent subscribed',
        'svc contacts create --email ada@example.com --email-consent subscribed',
        'svc contacts import customers.csv --dry-run',
      ]),
    );
  contacts
    .command('list')
    .description('list contacts, filtered by consent, email, phone or update time')
    .addOption(
      completeWith(new Option('--email-consent <value>', 'filter by email consent (read-only values included)'), EMAIL_CONSENT_VALUES),
    )
    .addOption(completeWith(new Option('--sms-consent <value>', 'filter by SMS consent (read-only values included)'), SMS_CONSENT_VALUES))
    .option('--email <email>', 'exact email')
    .option('--phone <phone>', 'exact phone')
    .option('--updated-since <time>', 'RFC 3339 time, e.g. 2026-01-01T00:00:00Z')
    .option('--limit <n>', 'stop after N contacts (default: one page of 50)', positiveInt('--limit'))
    .option('--all', 'walk every page')
    .option('--page-size <n>', 'contacts per request (1-250)', positiveInt('--page-size'))
    .addOption(new Option('--format <format>', 'output format').choices(OUTPUT_FORMATS))
    .option('--default-country <cc>', 'country for a --phone without country code')
    .option('--fields <names>', `print only these fields, in this order, in every format (${FIELDS_EXAMPLE})`)
    .addHelpText(
      'after',
      examples([
        'svc contacts list',
        'svc contacts list --email-consent subscribed --all --format csv > subscribed.csv',
        'svc contacts list --phone "(415) 555-0100" --default-country US --json | jq -r \'.[0].id\'',
        'svc contacts list --updated-since 2026-01-01T00:00:00Z --all --format ndjson',
        'svc contacts list --all --fields id,email,sms_consent --format csv',
      ]),
    )
    .action(action(() => import('./list.js')));
  contacts
    .command('get')
    .description('show one contact')
    .argument('<id>', 'contact id')
    .option('--fields <names>', `print only these fields, in this order (${FIELDS_EXAMPLE})`)
    .addHelpText(
      'after',
      examples([
        'svc contacts get "$(svc contacts list --email ada@example.com --json | jq -r \'.[0].id\')"',
        'id=$(svc contacts create --email grace@example.com --json | jq -r .id) && svc contacts get "$id" --json',
        'svc contacts get "$id" --fields email,sms_consent --json',
      ]),
    )
    .action(action(() => import('./get.js')));
  contactFieldOptions(contacts.command('create').description('create a contact'))
    .addOption(new Option('--if-exists <mode>', 'when the contact already exists').choices(['fail', 'skip', 'update']).default('fail'))
    .addHelpText(
      'after',
      examples([
        'svc contacts create --email ada@example.com --first-name Ada --email-consent subscribed',
        'svc contacts create --phone "(415) 555-0100" --default-country US --sms-consent subscribed --no-welcome-sms',
        'svc contacts create --email ada@example.com --last-name Lovelace --if-exists update --json',
      ]),
    )
    .action(action(() => import('./create.js')));
  contactFieldOptions(contacts.command('patch').description('change fields of a contact').argument('<id>', 'contact id'))
    .addHelpText(
      'after',
      examples([
        "id=$(svc contacts list --email ada@example.com --json | jq -r '.[0].id')",
        'svc contacts patch "$id" --first-name Ada --last-name Lovelace',
        'svc contacts patch "$id" --phone "+44 20 7946 0958" --sms-consent subscribed --no-welcome-sms',
      ]),
    )
    .action(action(() => import('./patch.js')));
  contacts
    .command('import')
    .description(
      'import contacts from a CSV file (- for stdin): POST each, on 409 update, skip or reject; consent kept, no welcome SMS unless asked',
    )
    .argument('<file>', 'CSV file, or - for stdin')
    .addOption(
      new Option('--if-exists <mode>', 'when the contact already exists (409): update it, skip it, or reject the row')
        .choices(['update', 'skip', 'fail'])
        .default('update'),
    )
    .option('--welcome-sms', 'let the service send its welcome SMS to contacts that become SMS subscribed (default: never)')
    .option('--allow-unsuppress', 'let rows lift merchant suppressions (without it, such rows stop the import before it sends)')
    .addOption(
      new Option('--no-means <value>', 'what "no" in a yes/no opt-in column writes: nothing (default) or unsubscribed').choices([
        'nothing',
        'unsubscribed',
      ]),
    )
    .addOption(
      completeWith(
        new Option('--preset <name>', 'read a known export (default: recognised from the header; none: columns by name)'),
        contactPresets,
      ),
    )
    .option('--map-file <file>', 'a JSON mapping file (the same format as the presets)')
    .option('--map <field=column>', 'read a contact field from a differently named column (repeatable)', collect)
    .option('--set <field=value>', "give every row this email_consent or sms_consent (over a preset's; repeatable)", collect)
    .option('--default-country <cc>', 'country for phone numbers without a country code (e.g. US)')
    .option('--concurrency <n>', 'most requests in flight (default 16; lowered automatically on 429)', concurrency)
    .option('--report <file>', 'write a CSV report (columns line, email, phone, contact_id, outcome, status, error_code, message)')
    .option('--rejects <file>', "write the rejected rows back in the input's own format, with error columns, to fix and import again")
    .option('--rejects-include-failed', 'with --rejects: also write the rows that failed (gave up after retries)')
    .option('--dry-run', 'check every row and list people on several lines without sending')
    .option('--plan', "read the account and show what the import would do to each person's consent; send nothing")
    .option('--plan-out <file>', "with --plan: write every row's planned outcome as CSV")
    .addOption(planReadOption())
    .option('--resume', 'continue an interrupted import of the same file with the same options')
    .option('--delimiter <char>', 'field delimiter (default: detected among , ; and tab)')
    .option('--encoding <name>', "the file's encoding: utf-8 (default; UTF-16LE found by its BOM), windows-1252, latin1, utf-16le…")
    .option('--journal <file>', 'where progress is recorded for --resume (default: next to the report, or in the data folder)')
    .addHelpText(
      'after',
      examples([
        'svc contacts import customers.csv --dry-run                 # check every row, send nothing',
        'svc contacts import customers.csv --plan                    # what it would do to consent; sends nothing',
        'svc contacts import customers_export.csv --report import-report.csv   # Shopify: recognised',
        'svc contacts import unsubscribed_members_export.csv --dry-run    # Mailchimp: consent from the file',
        'svc contacts import people.csv --map email="E-mail" --map phone=Mobile --default-country US --if-exists skip',
        'svc contacts import customers.csv --resume                  # after Ctrl-C or a crash',
        'cat customers.csv | svc contacts import - --json',
      ]),
    )
    .action(action(() => import('./import.js')));
  idsFileOptions(
    contacts
      .command('unsubscribe')
      .description('unsubscribe a contact from email (PATCH email_consent=unsubscribed)')
      .argument('[id]', 'contact id')
      .option('--legacy', 'use the deprecated unsubscribe endpoint'),
    'unsubscribe',
  )
    .addHelpText(
      'after',
      examples([
        'svc contacts unsubscribe "$(svc contacts list --email ada@example.com --json | jq -r \'.[0].id\')"',
        'svc contacts unsubscribe --ids-file ids.txt --report unsubscribe-report.csv',
        "svc contacts list --email-consent suppressed --all --json | jq -r '.[].id' | svc contacts unsubscribe --ids-file -",
      ]),
    )
    .action(action(() => import('./unsubscribe.js')));
  idsFileOptions(
    contacts
      .command('delete')
      .description('delete a contact (asks first on a terminal)')
      .argument('[id]', 'contact id')
      .option('-y, --yes', 'do not ask; required without a terminal'),
    'delete',
  )
    .addHelpText(
      'after',
      examples([
        'svc contacts delete "$(svc contacts list --email ada@example.com --json | jq -r \'.[0].id\')"   # asks first',
        'svc contacts delete --ids-file ids.txt --yes --report delete-report.csv',
      ]),
    )
    .action(action(() => import('./delete.js')));
}
