import { Argument, type Command } from '@commander-js/extra-typings';
import { type ActionFactory, collect, completeWith, examples } from '../loader.js';

export function defineApi(program: Command, action: ActionFactory): void {
  program
    .command('api')
    .description('make an authenticated request and print the response body (like gh api)')
    .addArgument(
      completeWith(new Argument('<method>', 'HTTP method: GET, POST, PATCH, DELETE, …'), ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
    )
    .argument('<path>', 'path relative to the base URL, e.g. /v1/contacts?limit=5 (the leading / may be left out)')
    .option('-F, --field <key=value>', 'a body field (typed like events --prop); query parameter for GET (repeatable)', collect)
    .option('-f, --raw-field <key=value>', 'a body field that is always a string (query parameter for GET) (repeatable)', collect)
    .option('-H, --header <name:value>', 'an extra request header (repeatable)', collect)
    .option('--input <file>', 'request body from a file (- for stdin)')
    .option('-i, --include', 'print the status line and response headers too')
    .option('--paginate', 'GET every page of a listing and print the items as one JSON array')
    .option('--ndjson', "print a listing's items one JSON object a line (with --paginate: of every page)")
    .addHelpText(
      'after',
      examples([
        "svc api GET '/v1/contacts?limit=5'",
        'svc api GET /v1/contacts -F email_consent=subscribed -F limit=10',
        'svc api POST /v1/events -F event_type=signed_up -F email=ada@example.com -F properties.plan=pro',
        'svc api PATCH /v1/contacts/"$id" -f first_name=Ada -i',
        'svc api POST /v1/contacts --input contact.json',
        'svc api GET /v1/contacts --paginate -F email_consent=subscribed > subscribed.json',
        "svc api GET v1/contacts --paginate --ndjson | jq -r '.email'",
      ]),
    )
    .action(action(() => import('./api.js')));
}
