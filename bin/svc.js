#!/usr/bin/env node
// `svc --version` is the start-up path scripts hit most: answered here, before the CLI's modules
// load (about 12 ms of a 55 ms start; docs/performance.md). Everything else goes to main.
const args = process.argv.slice(2);
if (args.length === 1 && ['--version', '-v', '-V', 'version'].includes(args[0])) {
  const { readFileSync } = await import('node:fs');
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  // `svc --version | true`: a reader gone is not an error.
  process.stdout.on('error', (err) => process.exit(err.code === 'EPIPE' ? 0 : 1));
  process.stdout.write(`${version}\n`);
} else {
  const { main } = await import('../dist/main.js');
  process.exitCode = await main(args);
}
