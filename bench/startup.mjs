// Start-up of `svc --version` against a bare `node -e 0`, measured with hyperfine -N in a clean
// environment (variables such as NODE_EXTRA_CA_CERTS add tens of ms to every Node start).
// Prints the medians and their ratio, and the same for CPU time; asserts nothing. Needs
// `npm run build` and hyperfine (Debian package `hyperfine`).
//
// --bin PATH measures an installed command instead of the checkout's bin/svc.js, run as a user
// runs it (PATH is the `svc` that npm links into the prefix's bin/, started through its
// `#!/usr/bin/env node` line); docs/performance.md shows how to install one into a temporary prefix.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({ options: { bin: { type: 'string' } } });
const out = join(mkdtempSync(join(tmpdir(), 'svc-bench-')), 'startup.json');
const runs = process.env.RUNS ?? '60';
const svc = values.bin ? resolve(values.bin) : `node ${join(root, 'bin/svc.js')}`;
// The installed command finds node on PATH: this one, as for `node -e 0`.
const path = values.bin ? `${dirname(process.execPath)}:${process.env.PATH}` : process.env.PATH;
const commands = ['node -e 0', `${svc} --version`, `${svc} --help`];
try {
  execFileSync(
    'env',
    [
      '-i',
      `PATH=${path}`,
      `HOME=${process.env.HOME}`,
      'hyperfine',
      '-N',
      '--warmup',
      '5',
      '--runs',
      runs,
      '--export-json',
      out,
      ...commands,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
} catch (err) {
  console.error('hyperfine failed (is it installed? apt-get install hyperfine):', err.message);
  process.exit(1);
}
const { results } = JSON.parse(readFileSync(out, 'utf8'));
const base = results[0].median;
// CPU time (user + system, mean over the runs) moves far less than wall time when other jobs
// load the machine: a cross-check of the ratio on a busy machine.
const cpu = (r) => r.user + r.system;
for (const r of results) {
  console.log(
    `${r.command.replace(root, '')}: median ${(r.median * 1000).toFixed(1)} ms  (ratio ${(r.median / base).toFixed(2)}); ` +
      `CPU ${(cpu(r) * 1000).toFixed(1)} ms  (ratio ${(cpu(r) / cpu(results[0])).toFixed(2)})`,
  );
}
