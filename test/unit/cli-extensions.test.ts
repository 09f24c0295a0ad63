/**
 * docs/cli-extensions.md lists what svc has beyond the contract (../shared/spec/cli.md): every
 * command and flag of the tree must be in the contract or on that page, so a new flag cannot
 * arrive undocumented. The contract is maintained outside this checkout (CI's copies do not have
 * it), so its commands and flags are written down here; where the contract is present, a second
 * test checks that each of them is still in it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { walkCommands } from '../helpers/command-tree.js';
import { CONTRACT_GROUPS, CONTRACT_COMMANDS as CONTRACT_LEAVES } from '../helpers/contract-commands.js';

/** The flags that ../shared/spec/cli.md names. */
const CONTRACT_FLAGS = `--accepts-email-marketing --accepts-sms-marketing --all --base-url --client-id
  --client-secret-stdin --concurrency --contact-id --currency --db --debug --default-country --delimiter --dry-run
  --email --email-consent --event-id --field --file --first-name --format --host --if-exists --initial-sync --input
  --insecure --integration-token-stdin --json --last-name --legacy --limit --map --memory --no-color
  --no-welcome-sms --occurred-at --order-date --order-id --phone --port --profile --prop --properties --quiet
  --report --require-scopes --resume --sandbox --scopes --seed --sms-consent --token-ttl --total --type
  --updated-since --with-token --yes`.split(/\s+/);

/** The commands that ../shared/spec/cli.md names, groups too. */
const CONTRACT_COMMANDS = [...CONTRACT_GROUPS, ...CONTRACT_LEAVES];

const root = join(import.meta.dirname, '..', '..');
const extensions = readFileSync(join(root, 'docs', 'cli-extensions.md'), 'utf8');
/** A flag as a word of its own: `--email` is not named by `--email-consent`. */
const asWord = (text: string) => new RegExp(`(^|[^\\w-])${text}(?![\\w-])`, 'm');

it('every command and flag is in the contract or in docs/cli-extensions.md', () => {
  const missing: string[] = [];
  walkCommands((cmd, path) => {
    const name = path.join(' ');
    if (path.length && !CONTRACT_COMMANDS.includes(name) && !extensions.includes(`svc ${name}`)) missing.push(`svc ${name}`);
    for (const o of cmd.options) {
      const flag = o.long ?? o.short;
      if (flag && !CONTRACT_FLAGS.includes(flag) && !asWord(flag).test(extensions)) missing.push(`svc ${name} ${flag}`.replace('  ', ' '));
    }
  });
  expect(missing).toEqual([]);
});

const contractPath = join(root, '..', 'shared', 'spec', 'cli.md');
it.skipIf(!existsSync(contractPath))('the commands and flags written down above are still in the contract', () => {
  const contract = readFileSync(contractPath, 'utf8');
  expect(CONTRACT_FLAGS.filter((f) => !asWord(f).test(contract))).toEqual([]);
  expect(CONTRACT_COMMANDS.filter((c) => !contract.includes(c))).toEqual([]);
});
