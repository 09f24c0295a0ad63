import type { Command } from '@commander-js/extra-typings';
import { type ActionFactory, collect, concurrency, examples } from '../loader.js';

export function defineEvents(program: Command, action: ActionFactory): void {
  const events = program
    .command('events')
    .description('send custom events that can trigger Flows')
    .addHelpText(
      'after',
      examples(['svc events send --type signed_up --email ada@example.com --prop plan=pro', 'svc events send --file events.ndjson']),
    );
  events
    .command('send')
    .description('send one event, or every line of an NDJSON file')
    .option('--type <event_type>', 'event type (what Flows are keyed on)')
    .option('--email <email>', 'identify the contact by email')
    .option('--phone <phone>', 'identify the contact by phone')
    .option('--contact-id <id>', 'identify the contact by id')
    .option(
      '--prop <key=value>',
      'a property; typed (numbers, true/false, null), nested with dots (a.b=1), key[]=v appends, key:=<json> for raw JSON (key:=\'"007"\' forces a string); repeatable',
      collect,
    )
    .option('--properties <json|@file>', 'properties as a JSON object, or @file')
    .option('--occurred-at <time>', 'RFC 3339 time of the event (default: now, by the service)')
    .option('--event-id <id>', 'your id for the event, passed through to the service')
    .option('--file <file>', 'send every event of an NDJSON file (- for stdin)')
    .option('--concurrency <n>', 'with --file: most requests in flight (default 16)', concurrency)
    .option('--report <file>', 'with --file: write a CSV report, one line per input line (line,id,outcome,status,error_code,message)')
    .option('--dry-run', 'with --file: check every line, send nothing (exit 4 if a line would be rejected)')
    .option('--rejects <file>', 'with --file: write the rejected lines back (NDJSON, each with an _error member) to fix and send again')
    .option('--rejects-include-failed', 'with --rejects: also write the lines that failed (not processed; gave up after retries)')
    .option(
      '--resume',
      'with --file: continue an interrupted run of the same file (lines it may have sent are reported unconfirmed, never sent again)',
    )
    .option('--journal <file>', 'with --file: where progress is recorded for --resume (default: next to the report, or in the data folder)')
    .option(
      '--unconfirmed-out <file>',
      'with --file: write the lines whose events may or may not have been stored (NDJSON), to resend after checking',
    )
    .option('--default-country <cc>', 'country for phone numbers without a country code')
    .option('--encoding <name>', "with --file: the file's encoding (default utf-8; windows-1252, latin1, utf-16le…)")
    .addHelpText(
      'after',
      examples(
        [
          'svc events send --type signed_up --email ada@example.com --prop plan=pro --prop seats=5',
          'svc events send --type ci_check --phone "(415) 555-0100" --default-country US --json',
          'svc events send --file events.ndjson --report report.csv --unconfirmed-out unconfirmed.ndjson',
        ],
        `Exit 0 means HTTP 200: accepted for processing, not that a Flow ran. With --file: exit 4 when a
line was rejected or failed. Events are not idempotent: a line whose answer was lost (connection
reset, 500/502/504) is reported "unconfirmed" and never resent automatically.`,
      ),
    )
    .action(action(() => import('./send.js')));
}
