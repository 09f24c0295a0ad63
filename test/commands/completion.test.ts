/**
 * svc completion bash|zsh|fish. The bash script is loaded into a plain `bash --norc` (no
 * bash-completion package) and its registered function is called the way bash calls it at a Tab:
 * COMP_WORDS/COMP_CWORD set, COMPREPLY read back. Profile names come from the real CLI (a `svc`
 * on PATH) reading a temporary store. zsh and fish scripts are loaded when those shells exist.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialStore } from '../../src/store/store.js';
import { SHIPPED_PRESETS } from '../helpers/contract-commands.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { ensureBuilt, root } from '../helpers/spawn-cli.js';
import { hasTmux, killSession, startSession, tmux, waitFor } from '../helpers/tmux.js';

let cfg: { dir: string; cleanup: () => void };
let binDir: string;
const scripts: Record<string, string> = {};

function has(shell: string): boolean {
  return spawnSync(shell, ['-c', 'exit 0']).status === 0;
}

beforeAll(async () => {
  await ensureBuilt();
  cfg = tempConfigDir();
  const store = new CredentialStore(cfg.dir);
  store.setProfile('staging', { base_url: 'https://staging.example.com', auth_method: 'api_token', api_token: 'svc_secret_abc' });
  store.setProfile('prod', { base_url: 'https://api.example.com' });
  // `svc` on PATH, as an installed one is: the script asks it for the profile names.
  binDir = join(cfg.dir, 'bin');
  mkdirSync(binDir);
  writeFileSync(join(binDir, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'bin', 'svc.js')}" "$@"\n`);
  chmodSync(join(binDir, 'svc'), 0o755);
  for (const shell of ['bash', 'zsh', 'fish']) {
    const r = await runCli(['completion', shell]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    scripts[shell] = r.stdout;
    writeFileSync(join(cfg.dir, `svc.${shell}`), r.stdout);
  }
});
afterAll(() => cfg?.cleanup());

const env = () => ({ PATH: `${binDir}:${process.env.PATH}`, SVC_CONFIG_DIR: cfg.dir, HOME: cfg.dir });

/**
 * What bash's registered function offers for a command line, cursor at its end. `words` are
 * COMP_WORDS as bash splits them (it splits at "=": `--format=c` is `--format`, `=`, `c`).
 */
function bashOffers(words: string[]): string[] {
  const script = `
source ${JSON.stringify(join(cfg.dir, 'svc.bash'))}
fn=$(complete -p svc | sed -n 's/.*-F \\([^ ]*\\) svc$/\\1/p')
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})
COMP_CWORD=${words.length - 1}
COMP_LINE=${JSON.stringify(words.join(' '))}
COMP_POINT=\${#COMP_LINE}
"$fn" svc "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\\n' "\${COMPREPLY[@]}"
`;
  const out = execFileSync('bash', ['--norc', '--noprofile', '-c', script], { env: env(), cwd: cfg.dir, encoding: 'utf8' });
  return out.split('\n').filter((l) => l !== '');
}

describe('svc completion bash, in a plain bash', () => {
  it('registers a function with complete -F', () => {
    const out = execFileSync('bash', ['--norc', '--noprofile', '-c', `source ${join(cfg.dir, 'svc.bash')}; complete -p svc`], {
      env: env(),
      encoding: 'utf8',
    });
    expect(out).toMatch(/^complete -F \S+ svc$/m);
  });

  it('completes commands and subcommands', () => {
    expect(bashOffers(['svc', 'con'])).toEqual(['contacts']);
    expect(bashOffers(['svc', 'contacts', ''])).toEqual(['list', 'get', 'create', 'patch', 'import', 'unsubscribe', 'delete']);
    expect(bashOffers(['svc', 'auth', 's'])).toEqual(['status', 'switch']);
    // Global flags before the command do not get in the way.
    expect(bashOffers(['svc', '--profile', 'prod', '--json', 'contacts', 'li'])).toEqual(['list']);
  });

  it('completes consent values from the contract: all of them to filter, the writable ones to write', () => {
    expect(bashOffers(['svc', 'contacts', 'list', '--email-consent', 's'])).toEqual(['subscribed', 'suppressed']);
    expect(bashOffers(['svc', 'contacts', 'list', '--sms-consent', ''])).toEqual([
      'subscribed',
      'unsubscribed',
      'never_subscribed',
      'single_opt_in',
      'pending',
    ]);
    expect(bashOffers(['svc', 'contacts', 'create', '--email-consent', ''])).not.toContain('compliance_suppressed');
  });

  it('completes formats, --if-exists, presets and the --opt=value form', () => {
    expect(bashOffers(['svc', 'contacts', 'list', '--format', ''])).toEqual(['table', 'json', 'ndjson', 'csv']);
    expect(bashOffers(['svc', 'contacts', 'list', '--format', '=', 'n'])).toEqual(['ndjson']);
    expect(bashOffers(['svc', 'contacts', 'list', '--limit', '5', '--format', 'c'])).toEqual(['csv']);
    expect(bashOffers(['svc', 'contacts', 'create', '--if-exists', ''])).toEqual(['fail', 'skip', 'update']);
    expect(bashOffers(['svc', 'orders', 'import', 'x.csv', '--preset', ''])).toEqual(SHIPPED_PRESETS);
  });

  it("completes a subcommand's flags and the global ones", () => {
    const flags = bashOffers(['svc', 'contacts', 'list', '--']);
    expect(flags).toEqual(expect.arrayContaining(['--email-consent', '--format', '--all', '--json', '--profile', '--help']));
    expect(bashOffers(['svc', 'auth', 'status', '--of'])).toEqual(['--offline']);
    expect(bashOffers(['svc', 'contacts', 'delete', '--y'])).toEqual(['--yes']);
  });

  it('completes the stored profile names (never a secret), for --profile and auth switch', () => {
    expect(bashOffers(['svc', '--profile', ''])).toEqual(['prod', 'staging']);
    expect(bashOffers(['svc', 'auth', 'switch', 's'])).toEqual(['staging']);
  });

  it('completes help topics and command paths after svc help, and shells after completion', () => {
    expect(bashOffers(['svc', 'help', 'e'])).toEqual(['events', 'environment', 'exit-codes']);
    expect(bashOffers(['svc', 'help', 'contacts', 'l'])).toEqual(['list']);
    expect(bashOffers(['svc', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
  });

  it('completes file names for file options', () => {
    writeFileSync(join(cfg.dir, 'orders-2026.csv'), 'order_id\n');
    expect(bashOffers(['svc', 'orders', 'import', 'orders-'])).toEqual(['orders-2026.csv']);
    expect(bashOffers(['svc', 'contacts', 'import', 'a.csv', '--report', 'orders-2'])).toEqual(['orders-2026.csv']);
  });

  it('holds no secret', () => {
    for (const s of Object.values(scripts)) expect(s).not.toContain('svc_secret_abc');
  });

  it('an unknown shell is exit 2', async () => {
    const r = await runCli(['completion', 'powershell']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});

describe('svc completion bash at a real terminal (tmux)', () => {
  it.skipIf(!hasTmux)('Tab completes a command, a consent value and a profile on the command line', async () => {
    const e = env();
    const session = startSession('bash --norc --noprofile -i', e, { cols: 120, rows: 20 });
    try {
      // tmux keeps its server's PATH for a new session: set it in the shell itself.
      tmux(['send-keys', '-t', session, `export PATH='${e.PATH}' SVC_CONFIG_DIR='${e.SVC_CONFIG_DIR}'`, 'Enter']);
      tmux(['send-keys', '-t', session, `PS1='$ '; source ${join(cfg.dir, 'svc.bash')}; echo LOADED`, 'Enter']);
      await waitFor(session, /^LOADED$/m);
      tmux(['send-keys', '-t', session, 'svc con', 'Tab']);
      await waitFor(session, /\$ svc contacts$/m);
      tmux(['send-keys', '-t', session, 'li', 'Tab', '--email-consent su', 'Tab', 'Tab']);
      await waitFor(session, /subscribed +suppressed/);
      tmux(['send-keys', '-t', session, 'p', 'Tab', '--profile st', 'Tab']);
      await waitFor(session, /\$ svc contacts list --email-consent suppressed --profile staging$/m);
    } finally {
      killSession(session);
    }
  });
});

describe('svc completion zsh and fish', () => {
  it('produce a script for each', () => {
    expect(scripts.zsh).toMatch(/^#compdef svc/);
    expect(scripts.zsh).toContain('compdef _svc svc');
    expect(scripts.fish).toContain("complete -c svc -f -a '(__svc_complete)'");
  });

  it.skipIf(!has('zsh'))('zsh loads it after compinit and registers _svc for svc', () => {
    const out = execFileSync(
      'zsh',
      ['-f', '-c', `autoload -U compinit && compinit -u -d ${cfg.dir}/.zcompdump && source ${cfg.dir}/svc.zsh && print -r -- $_comps[svc]`],
      { env: env(), encoding: 'utf8' },
    );
    expect(out.trim()).toBe('_svc');
  });

  it.skipIf(!has('zsh'))('zsh: its function offers what bash does (zsh filters by the typed prefix itself)', () => {
    // Outside a completion widget, words/CURRENT are plain variables and the builtins are stood in for.
    const offer = (line: string) =>
      execFileSync(
        'zsh',
        [
          '-f',
          '-c',
          `autoload -U compinit && compinit -u -d ${cfg.dir}/.zcompdump && source ${cfg.dir}/svc.zsh
_describe() { local a=\${@[-1]}; print -rl -- \${\${(P)a}%%:*} }
compadd() { [[ $1 == -a ]] && print -rl -- \${(P)2} || print -rl -- "$@" }
_files() { print -r -- FILES }
compset() { : }
words=(\${(z)1}); [[ $1 == *' ' ]] && words+=(''); CURRENT=\${#words}; _svc`,
          'zsh',
          line,
        ],
        { env: env(), encoding: 'utf8' },
      )
        .split('\n')
        .filter((l) => l !== '');
    expect(offer('svc con')).toContain('contacts');
    expect(offer('svc contacts list --email-consent ')).toEqual([
      'subscribed',
      'unsubscribed',
      'never_subscribed',
      'suppressed',
      'compliance_suppressed',
    ]);
    expect(offer('svc contacts list --format ')).toEqual(['table', 'json', 'ndjson', 'csv']);
    expect(offer('svc auth status -')).toEqual(expect.arrayContaining(['--offline', '--json']));
    expect(offer('svc help ')).toEqual(expect.arrayContaining(['contacts', 'environment', 'exit-codes']));
    expect(offer('svc orders import ')).toEqual(['FILES']);
    expect(offer('svc --profile ')).toEqual(['prod', 'staging']);
  });

  it.skipIf(!has('fish'))('fish loads it and completes commands, consent values and profiles', () => {
    const offer = (line: string) =>
      execFileSync('fish', ['--no-config', '-c', `source ${cfg.dir}/svc.fish; complete -C ${JSON.stringify(line)}`], {
        env: env(),
        encoding: 'utf8',
      })
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.split('\t')[0]);
    expect(offer('svc con')).toEqual(['contacts']);
    expect(offer('svc contacts list --email-consent s')).toEqual(['subscribed', 'suppressed']);
    expect(offer('svc contacts list --format=n')).toEqual(['--format=ndjson']);
    expect(offer('svc --profile ')).toEqual(['prod', 'staging']);
    expect(offer('svc help ex')).toEqual(['exit-codes']);
  });
});
