/** `svc help …` like gh's: a command's page, topics, an unknown command named; `svc version`, `-V`. */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

describe('svc help', () => {
  it('alone shows the top-level help, exit 0', async () => {
    const r = await runCli(['help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: svc \[options\] \[command\]/);
  });

  it('with a command path shows that command (not its parent)', async () => {
    const r = await runCli(['help', 'contacts', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: svc contacts list/);
  });

  it('names an unknown command and exits 2', async () => {
    const r = await runCli(['help', 'nosuch']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/unknown command "nosuch"/);
  });

  it('has the environment and exit-codes topics', async () => {
    const env = await runCli(['help', 'environment']);
    expect(env.code).toBe(0);
    expect(env.stdout).toMatch(/SVC_TOKEN/);
    const codes = await runCli(['help', 'exit-codes']);
    expect(codes.code).toBe(0);
    expect(codes.stdout).toMatch(/130 +interrupted/);
  });

  it('svc version and -V print only the version', async () => {
    for (const a of ['version', '-V']) {
      const r = await runCli([a]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
    }
  });
});

describe('global flags in a subcommand help', () => {
  it('auth status --help lists --json, --profile and the other global flags', async () => {
    const r = await runCli(['auth', 'status', '--help']);
    expect(r.code).toBe(0);
    const global = r.stdout.split('Global Options:')[1] ?? '';
    for (const flag of ['--json', '--profile <name>', '--base-url <url>', '--sandbox', '--quiet', '--debug', '--no-color']) {
      expect(global).toContain(flag);
    }
  });

  it('a deeper command shows them too, and its own options apart', async () => {
    const r = await runCli(['contacts', 'list', '--help']);
    const [own, global] = r.stdout.split('Global Options:');
    expect(own).toContain('--email-consent <value>');
    expect(own).not.toContain('--json ');
    expect(global).toContain('--json');
  });
});
