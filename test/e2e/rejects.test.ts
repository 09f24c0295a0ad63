/**
 * The rejects loop end to end with the built CLI (`bin/svc.js`): import, fix the rejects file,
 * import it, and every row is stored once — for a Shopify orders export (BOM, quoted multi-line
 * cells, an order over several lines), a `;`-delimited Latin-1 contacts file read with
 * --encoding, and NDJSON events. Needs `node build.mjs` first (npm test does it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { ensureBuilt, spawnSvc } from '../helpers/spawn-cli.js';

beforeAll(ensureBuilt, 60_000);
const suite = cliSuite();
let env: Record<string, string>;
beforeEach(() => {
  env = suite.env();
});

// biome-ignore lint/suspicious/noExplicitAny: admin list answers
async function adminList(path: string): Promise<any[]> {
  const res = await fetch(`${suite.sb.baseUrl}/_sandbox${path}`);
  return ((await res.json()) as { data: unknown[] }).data as never;
}

describe('e2e: --rejects, fix, import the rejects file', () => {
  it('a Shopify orders export: the rejected orders (every line of each) back in the export’s own format', async () => {
    const input = join(suite.tmp.dir, 'orders_export.csv');
    const rejects = join(suite.tmp.dir, 'rejects.csv');
    const original = readFileSync(join(import.meta.dirname, '../../fixtures/shopify-orders-export.csv'), 'utf8');
    // Two orders the importer refuses: #1003 (three lines) and #1005, by their currency.
    const broken = original.replace(',GBP,', ',QQQ,').replace(',EUR,', ',EUU,');
    writeFileSync(input, broken);

    const first = await spawnSvc(['orders', 'import', '--live', input, '--preset', 'shopify', '--rejects', rejects, '--json'], env);
    expect(first.code, first.stderr).toBe(4);
    const summary = JSON.parse(first.stdout);
    expect(summary).toMatchObject({ rows: 6, created: 4, rejected: 2, rejects, rejects_rows: 2 });
    expect(summary.reimport_command).toBe(`svc orders import ${rejects} --live --preset shopify`);
    expect(first.stderr).toContain(`2 row(s) rejected and 0 failed out of 6; the rows to fix are in ${rejects}`);

    const text = readFileSync(rejects, 'utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    const inputRecords: string[][] = parse(broken, { bom: true, relax_column_count: true });
    const rejectRecords: string[][] = parse(text, { bom: true });
    const header = inputRecords[0] as string[];
    expect(rejectRecords[0]).toEqual([...header, 'error_field', 'error', 'line']);
    // The original cells, untouched (the multi-line notes included), then the reason.
    const wanted = inputRecords.slice(1).filter((r) => r[0] === '#1003' || r[0] === '#1005');
    expect(rejectRecords.slice(1).map((r) => r.slice(0, header.length))).toEqual(wanted);
    expect(rejectRecords.slice(1).every((r) => r[header.length] === 'currency')).toBe(true);

    // Fixed in "a spreadsheet": the currency cells only; the trailing columns stay.
    writeFileSync(rejects, text.replace(',QQQ,', ',GBP,').replace(',EUU,', ',EUR,'));
    const again = await spawnSvc(['orders', 'import', '--live', rejects, '--preset', 'shopify', '--json'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ rows: 2, created: 2, updated: 0, rejected: 0 });
    const stored = await adminList('/orders?limit=100');
    expect(stored.map((o) => o.order_id).sort()).toEqual(['#1001', '#1002', '#1003', '#1004', '#1005', '#1006']);
    expect((await suite.sb.admin.order('#1003'))?.line_items).toHaveLength(3);
  });

  it('a ;-delimited Latin-1 contacts file (--encoding): the rejects file in Latin-1, ; and CRLF', async () => {
    const input = join(suite.tmp.dir, 'kunden.csv');
    const rejects = join(suite.tmp.dir, 'zurueck.csv');
    const lines = ['E-Mail;Vorname;Nachname;Telefon'];
    for (let i = 1; i <= 8; i++) lines.push(`k${i}@example.com;Jürgen;Müller-${i};`);
    lines[3] = 'k3-at-example.com;Jörg;Öztürk;'; // a bad e-mail
    lines[6] = 'k6@example.com;Zoë;Weiß;12'; // a bad phone
    writeFileSync(input, Buffer.from(`${lines.join('\r\n')}\r\n`, 'latin1'));
    const maps = ['--map', 'email=E-Mail', '--map', 'first_name=Vorname', '--map', 'last_name=Nachname', '--map', 'phone=Telefon'];
    const common = ['--encoding', 'latin1', '--default-country', 'DE', ...maps];

    const first = await spawnSvc(['contacts', 'import', input, ...common, '--rejects', rejects, '--json'], env);
    expect(first.code, first.stderr).toBe(4);
    expect(JSON.parse(first.stdout)).toMatchObject({ rows: 8, created: 6, rejected: 2, rejects_rows: 2 });
    const bytes = readFileSync(rejects);
    const text = bytes.toString('latin1');
    expect(text).toBe(
      'E-Mail;Vorname;Nachname;Telefon;error_field;error;line\r\n' +
        'k3-at-example.com;Jörg;Öztürk;;email;email: must be an email address;4\r\n' +
        `k6@example.com;Zoë;Weiß;12;phone;${text.split('\r\n')[2]?.split(';')[5]};7\r\n`,
    );
    expect(bytes.includes(Buffer.from('ö', 'utf8'))).toBe(false);

    writeFileSync(rejects, Buffer.from(text.replace('k3-at-example.com', 'k3@example.com').replace(';12;', ';+49 30 901820;'), 'latin1'));
    const again = await spawnSvc(['contacts', 'import', rejects, ...common, '--json'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ rows: 2, created: 2, updated: 0 });
    const contacts = await adminList('/contacts?limit=100').catch(() => []);
    const list = contacts.length > 0 ? contacts : JSON.parse((await spawnSvc(['contacts', 'list', '--all', '--json'], env)).stdout);
    expect(list.map((c: { email: string }) => c.email).sort()).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((i) => `k${i}@example.com`));
    expect(list.find((c: { email: string }) => c.email === 'k3@example.com')).toMatchObject({ first_name: 'Jörg', last_name: 'Öztürk' });
  });

  it('NDJSON events: each rejected line with an _error member, sent again once fixed', async () => {
    const input = join(suite.tmp.dir, 'events.ndjson');
    const rejects = join(suite.tmp.dir, 'rejects.ndjson');
    const lines = [1, 2, 3, 4, 5].map((n) => JSON.stringify({ event_type: 'page_viewed', email: `e${n}@example.com`, properties: { n } }));
    lines[1] = `{"email":"e2@example.com","properties":{"n":2}}`; // no event_type
    lines[3] = `{"event_type":"page_viewed","email":"e4-at-example.com","properties":{"n":4}}`;
    writeFileSync(input, `${lines.join('\n')}\n\n`);

    const first = await spawnSvc(['events', 'send', '--file', input, '--rejects', rejects, '--json'], env);
    expect(first.code, first.stderr).toBe(4);
    expect(JSON.parse(first.stdout)).toMatchObject({ rows: 5, accepted: 3, rejected: 2, rejected_lines: [2, 4], rejects_rows: 2 });
    const rejected = readFileSync(rejects, 'utf8').split('\n');
    expect(rejected).toHaveLength(3);
    expect(rejected[0]).toBe(
      `{"email":"e2@example.com","properties":{"n":2},"_error":{"field":"event_type","message":"event_type is required","line":2}}`,
    );
    expect(JSON.parse(rejected[1] as string)._error).toMatchObject({ field: 'email', line: 4 });

    // Fixed in an editor; the _error members stay and are ignored.
    const fixed = rejected.map((l) => l.replace('{"email":"e2@', '{"event_type":"page_viewed","email":"e2@').replace('e4-at-', 'e4@'));
    writeFileSync(rejects, fixed.join('\n'));
    const again = await spawnSvc(['events', 'send', '--file', rejects, '--json'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ rows: 2, accepted: 2 });
    const events = await adminList('/events?limit=100');
    expect(events.map((e) => e.properties?.n).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(events.some((e) => '_error' in e || '_error' in (e.properties ?? {}))).toBe(false);
  });

  it('contacts delete --ids-file: the rejected ids back as an id list, the re-run command named', async () => {
    const input = join(suite.tmp.dir, 'ids.txt');
    const rejects = join(suite.tmp.dir, 'rejects.csv');
    writeFileSync(input, 'id\nct_missing\nnot valid\n');
    const r = await spawnSvc(['contacts', 'delete', '--ids-file', input, '--yes', '--rejects', rejects], env);
    expect(r.code, r.stderr).toBe(4);
    expect(readFileSync(rejects, 'utf8')).toBe('id,error_field,error,line\nnot valid,id,"invalid id ""not valid""",3\n');
    expect(r.stderr).toContain(`1 row(s) written to ${rejects}`);
    expect(r.stderr).toContain(`svc contacts delete --ids-file ${rejects} --yes`);
  });
});
