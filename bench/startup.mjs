// Start-up of `svc --version` against a bare `node -e 0`, measured with hyperfine -N in a clean
// environment (variables such as NODE_EXTRA_CA_CERTS add tens of ms to every Node start).
// Prints the medians and their ratio; asserts nothing. Needs `npm run build` and hyperfine
// (Debian package `hyperfine`).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const out = join(mkdtempSync(join(tmpdir(), 'svc-bench-')), 'startup.json');
const runs = process.env.RUNS ?? '60';
const commands = ['node -e 0', `node ${join(root, 'bin/svc.js')} --version`, `node ${join(root, 'bin/svc.js')} --help`];
try {
  execFileSync(
    'env',
    [
      '-i',
      `PATH=${process.env.PATH}`,
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
for (const r of results) {
  console.log(`${r.command.replace(root, '')}: median ${(r.median * 1000).toFixed(1)} ms  (ratio ${(r.median / base).toFixed(2)})`);
}
