/** The built CLI as users run it: a child process with real pipes and exit codes. */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONTRACT_COMMANDS } from '../helpers/contract-commands.js';

const bin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

function svc(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH, HOME: process.env.HOME } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('svc binary', () => {
  it('--version prints the package version', async () => {
    const r = await svc(['--version']);
    expect(r).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it('--version is answered by the bin alone, before the CLI loads (a bin and package.json without dist/)', async () => {
    const { cpSync, mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'svc-bin-'));
    try {
      cpSync(bin, join(dir, 'bin', 'svc.js'));
      cpSync(fileURLToPath(new URL('../../package.json', import.meta.url)), join(dir, 'package.json'));
      for (const flag of ['--version', '-V', 'version']) {
        const r = await new Promise<{ code: number; stdout: string }>((resolve) => {
          execFile(process.execPath, [join(dir, 'bin', 'svc.js'), flag], (err, stdout) => resolve({ code: err ? 1 : 0, stdout }));
        });
        expect(r).toEqual({ code: 0, stdout: `${pkg.version}\n` });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--help lists every command of the contract on stdout', async () => {
    const r = await svc(['--help']);
    expect(r.code).toBe(0);
    // Listed once each, at the start of a line of the Commands section (issue 30: 80 columns).
    for (const c of CONTRACT_COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
    for (const flag of ['--profile', '--base-url', '--sandbox', '--json', '--debug', '--no-color', '--quiet'])
      expect(r.stdout).toContain(flag);
  });

  it('an unknown command exits 2 with an error on stderr', async () => {
    const r = await svc(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("error: unknown command 'frobnicate'");
  });

  it('an unknown option exits 2', async () => {
    const r = await svc(['contacts', 'list', '--frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--frobnicate'");
  });

  it('a bad option value exits 2', async () => {
    const r = await svc(['orders', 'import', 'x.csv', '--concurrency', 'zero']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--concurrency must be a positive integer');
  });
});

describe('start-up stays small', () => {
  /** Bare package imports reachable from a chunk through static imports only. */
  function staticPackages(file: string, seen = new Set<string>()): Set<string> {
    const found = new Set<string>();
    if (seen.has(file)) return found;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:^|[;\s}])import\s*(?:[^'"();]*?from\s*)?["']([^"']+)["']/g)) {
      const spec = m[1] as string;
      if (spec.startsWith('.')) {
        for (const p of staticPackages(fileURLToPath(new URL(spec, `file://${file}`)), seen)) found.add(p);
      } else found.add(spec);
    }
    return found;
  }

  it('svc --version and svc --help load only Node built-ins (commander is bundled)', () => {
    const entry = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
    const text = readFileSync(entry, 'utf8');
    const program = /import\("(\.\/chunks\/program-[^"]+)"\)/.exec(text)?.[1];
    expect(program).toBeDefined();
    const packages = [...staticPackages(entry), ...staticPackages(fileURLToPath(new URL(`../../dist/${program}`, import.meta.url)))];
    expect(packages.filter((p) => !p.startsWith('node:'))).toEqual([]);
  });

  it('undici is loaded lazily, by its package entry, from one chunk; the bundled packages are inside the chunks', () => {
    const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
    const files = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js') && !f.startsWith('dashboard'));
    const imports = new Set(files.flatMap((f) => [...staticPackages(join(dist, f))]));
    // No static import of undici anywhere: only the transport's first request loads it.
    expect([...imports].filter((i) => i === 'undici' || i.startsWith('undici/'))).toEqual([]);
    const lazy = files.filter((f) => readFileSync(join(dist, f), 'utf8').includes('import("undici")'));
    expect(lazy).toHaveLength(1);
    expect(files.some((f) => /import\("undici\/[^"]*"\)/.test(readFileSync(join(dist, f), 'utf8')))).toBe(false);
    // build.mjs bundles these: resolving their files one by one cost ~0.1 s of every import's start.
    for (const name of ['libphonenumber-js', 'papaparse', 'csv-parse', 'csv-stringify', 'env-paths', 'commander']) {
      expect([...imports].filter((i) => i === name || i.startsWith(`${name}/`))).toEqual([]);
    }
  });

  it('libphonenumber in the bundle: its published modern build (no Babel helpers), not rewritten by the build', () => {
    const dist = fileURLToPath(new URL('../../dist/chunks/', import.meta.url));
    const texts = readdirSync(dist, { encoding: 'utf8' })
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(dist, f), 'utf8'));
    // Babel's class and spread helpers (the message of its _classCallCheck, the descriptors its
    // _objectSpread2 copies) come only with libphonenumber's es6/ build.
    expect(texts.filter((t) => t.includes('Cannot call a class as a function') || t.includes('getOwnPropertyDescriptors'))).toEqual([]);
    // The package's own helper, as published: a RegExp per call (docs/performance.md: proposed upstream).
    expect(texts.filter((t) => /new RegExp\("\^\(\?:"\s*\+\s*[\w$]+\s*\+\s*"\)\$"\)\.test/.test(t))).toHaveLength(1);
    expect(existsSync(fileURLToPath(new URL('../../build-plugins.mjs', import.meta.url)))).toBe(false);
  });
});
