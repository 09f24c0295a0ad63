import { type Command, Option, type OptionValues } from '@commander-js/extra-typings';
import { OUTPUT_FORMATS } from '../../io/formats.js';
import { type ActionFactory, collect, positiveInt } from '../loader.js';

function contactFieldOptions<Args extends unknown[], Opts extends OptionValues>(cmd: Command<Args, Opts>) {
  return cmd
    .option('--email <email>', 'email address')
    .option('--phone <phone>', 'phone number (E.164, or local with --default-country)')
    .option('--first-name <name>', 'first name')
    .option('--last-name <name>', 'last name')
    .option('--email-consent <value>', 'email consent: subscribed, unsubscribed, never_subscribed, suppressed')
    .option('--sms-consent <value>', 'SMS consent: subscribed, unsubscribed, never_subscribed, single_opt_in')
    .option('--no-welcome-sms', 'do not send the welcome SMS when SMS consent becomes subscribed')
    .option('--default-country <cc>', 'country for phone numbers without a country code (e.g. US, GB)');
}

/** --fields in the help: an example and where the names come from (the contact's API fields). */
const FIELDS_EXAMPLE = 'e.g. id,email,sms_consent; names as in --format csv or --json';

export function defineContacts(program: Command, action: ActionFactory): void {
  const contacts = program.command('contacts').description('list, create, change, unsubscribe and delete contacts');
  contacts
    .command('list')
    .description('list contacts, filtered by consent, email, phone or update time')
    .option('--email-consent <value>', 'filter by email consent (read-only values included)')
    .option('--sms-consent <value>', 'filter by SMS consent (read-only values included)')
    .option('--email <email>', 'exact email')
    .option('--phone <phone>', 'exact phone')
    .option('--updated-since <time>', 'RFC 3339 time, e.g. 2026-01-01T00:00:00Z')
    .option('--limit <n>', 'stop after N contacts (default: one page of 50)', positiveInt('--limit'))
    .option('--all', 'walk every page')
    .option('--page-size <n>', 'contacts per request (1-250)', positiveInt('--page-size'))
    .addOption(new Option('--format <format>', 'output format').choices(OUTPUT_FORMATS))
    .option('--default-country <cc>', 'country for a --phone without country code')
    .option('--fields <names>', `print only these fields, in this order, in every format (${FIELDS_EXAMPLE})`)
    .action(action(() => import('./list.js')));
  contacts
    .command('get')
    .description('show one contact')
    .argument('<id>', 'contact id')
    .option('--fields <names>', `print only these fields, in this order (${FIELDS_EXAMPLE})`)
    .action(action(() => import('./get.js')));
  contactFieldOptions(contacts.command('create').description('create a contact'))
    .addOption(new Option('--if-exists <mode>', 'when the contact already exists').choices(['fail', 'skip', 'update']).default('fail'))
    .action(action(() => import('./create.js')));
  contactFieldOptions(contacts.command('patch').description('change fields of a contact').argument('<id>', 'contact id')).action(
    action(() => import('./patch.js')),
  );
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
    .addOption(
      new Option('--no-means <value>', 'what "no" in a yes/no opt-in column writes: nothing (default) or unsubscribed').choices([
        'nothing',
        'unsubscribed',
      ]),
    )
    .option('--preset <name>', 'read a known export: shopify (Shopify customers export)')
    .option('--map-file <file>', 'a JSON mapping file (the same format as the presets)')
    .option('--map <field=column>', 'read a contact field from a differently named column (repeatable)', collect)
    .option('--default-country <cc>', 'country for phone numbers without a country code (e.g. US)')
    .option('--concurrency <n>', 'most requests in flight (default 16; lowered automatically on 429)', positiveInt('--concurrency'))
    .option('--report <file>', 'write a CSV report: line,email,phone,contact_id,outcome,status,error_code,message')
    .option('--dry-run', 'check every row and list people on several lines without sending')
    .option('--resume', 'continue an interrupted import of the same file with the same options')
    .option('--delimiter <char>', 'field delimiter (default: detected among , ; and tab)')
    .option('--encoding <name>', "the file's encoding: utf-8 (default; UTF-16LE found by its BOM), windows-1252, latin1, utf-16le…")
    .option('--journal <file>', 'where progress is recorded for --resume (default: next to the report, or in the data folder)')
    .action(action(() => import('./import.js')));
  contacts
    .command('unsubscribe')
    .description('unsubscribe a contact from email (PATCH email_consent=unsubscribed)')
    .argument('[id]', 'contact id')
    .option('--legacy', 'use the deprecated unsubscribe endpoint')
    .option('--ids-file <file>', 'unsubscribe every id in a file (one per line, - for stdin)')
    .option('--report <file>', 'with --ids-file: write a CSV report of each id')
    .option('--encoding <name>', "with --ids-file: the file's encoding (default utf-8)")
    .action(action(() => import('./unsubscribe.js')));
  contacts
    .command('delete')
    .description('delete a contact (asks first on a terminal)')
    .argument('[id]', 'contact id')
    .option('-y, --yes', 'do not ask; required without a terminal')
    .option('--ids-file <file>', 'delete every id in a file (one per line, - for stdin)')
    .option('--report <file>', 'with --ids-file: write a CSV report of each id')
    .option('--encoding <name>', "with --ids-file: the file's encoding (default utf-8)")
    .action(action(() => import('./delete.js')));
}
