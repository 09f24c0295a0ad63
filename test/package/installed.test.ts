/**
 * The package a user installs: `npm pack`, then `npm install --global` of the tarball into a
 * temporary prefix with a clean HOME, and `svc` run from a folder outside the checkout, where no
 * source file, fixture or dev dependency of the checkout can be reached.
 *
 * Not part of `npm test`: the global install packs and installs the whole package (with
 * better-sqlite3 from the checkout's own build: localPrebuild below). `npm run test:package` runs it; .ci/run runs it once, after `npm test`.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, parse } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  devDependencies: Record<string, string>;
};

const tmp = mkdtempSync(join(tmpdir(), 'svc-package-'));
const prefix = join(tmp, 'prefix');
const home = join(tmp, 'home');
const work = join(tmp, 'work');
const installed = join(prefix, 'lib', 'node_modules', pkg.name);
const svcBin = join(prefix, 'bin', 'svc');
// This Node first, then the system's folders; nothing of the checkout (npm run puts its
// node_modules/.bin on PATH).
const path = [join(prefix, 'bin'), dirname(process.execPath), ...(process.env.PATH ?? '').split(delimiter)]
  .filter((p) => p !== '' && !p.startsWith(root))
  .join(delimiter);
const svcEnv = { PATH: path, HOME: home, SVC_CONFIG_DIR: join(tmp, 'config'), SVC_DATA_DIR: join(tmp, 'data') };

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}
let packed: PackResult;

/** The npm settings this machine installs with (registry, CA file, node headers, cache), read before HOME changes. */
function npmSettings(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ['userconfig', 'globalconfig', 'cache', 'nodedir']) {
    const value = execFileSync('npm', ['config', 'get', key], { encoding: 'utf8' }).trim();
    if (value !== '' && value !== 'undefined' && value !== 'null') out[`npm_config_${key}`] = value;
  }
  return out;
}

/**
 * A user's install downloads better-sqlite3's prebuilt binary (prebuild-install, from its GitHub
 * release); this machine reaches only the registries, so without help it compiles it again (one to
 * three minutes of CI). The checkout's own build of the same version for this Node is offered the
 * documented way instead: a prebuild archive in the folder `npm_config_better_sqlite3_local_prebuilds`
 * names (prebuild-install's README, "Local prebuilds"). Were the installed version another, it
 * would not be found and the install would compile as before.
 */
function localPrebuild(): Record<string, string> {
  const dir = join(root, 'node_modules', 'better-sqlite3');
  const binary = join(dir, 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(binary)) return {};
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  const prebuilds = join(tmp, 'prebuilds');
  mkdirSync(prebuilds, { recursive: true });
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['-czf', join(prebuilds, name), '-C', dir, 'build/Release/better_sqlite3.node']);
  return { npm_config_better_sqlite3_local_prebuilds: prebuilds };
}

beforeAll(() => {
  for (const dir of [home, work]) mkdirSync(dir, { recursive: true });
  // npm pack runs `prepare` (the build) first, so the tarball always holds a fresh dist/.
  const pack = execFileSync('npm', ['pack', '--json', '--pack-destination', tmp], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  packed = (JSON.parse(pack) as PackResult[])[0]!;
  const install = spawnSync(
    'npm',
    ['install', '--global', '--no-fund', '--no-audit', '--allow-scripts=better-sqlite3', join(tmp, packed.filename)],
    {
      cwd: work,
      encoding: 'utf8',
      env: { PATH: path, HOME: home, ...npmSettings(), ...localPrebuild(), npm_config_prefix: prefix },
      timeout: 600_000,
    },
  );
  if (install.status !== 0) throw new Error(`npm install --global failed (${install.status ?? install.signal}):\n${install.stderr}`);
  console.log(`packed ${packed.size} B (unpacked ${packed.unpackedSize} B, ${packed.files.length} files); installed ${duBytes(prefix)} B`);
}, 660_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Bytes on disk of a folder (du), for the log line docs/performance.md quotes. */
function duBytes(dir: string): number {
  return Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);
}

function svc(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(svcBin, args, { cwd: work, env: svcEnv, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the packed package', () => {
  it('holds the built code, the sample, the licence and nothing else (no source maps, sources or tests)', () => {
    const allowed =
      /^(bin\/svc\.js|dist\/(chunks\/)?[\w.-]+\.js|dist\/dashboard\/(app\.js|app\.css|favicon\.svg|index\.html)|fixtures\/orders-sample\.csv|presets\/(orders|contacts)\/[\w-]+\.json|LICENSE|README\.md|package\.json)$/;
    const paths = packed.files.map((f) => f.path);
    expect(paths.filter((p) => !allowed.test(p))).toEqual([]);
    for (const p of [
      'bin/svc.js',
      'dist/main.js',
      'dist/sandbox.js',
      'fixtures/orders-sample.csv',
      'dist/dashboard/index.html',
      'dist/dashboard/app.js',
      'presets/orders/shopify.json',
      'presets/contacts/shopify.json',
      'LICENSE',
    ])
      expect(paths).toContain(p);
  });
});

describe('svc installed globally from the tarball', () => {
  it('has no source, test or dev dependency in reach of the installed code', () => {
    for (const dir of ['src', 'test', 'bench', 'docs']) expect(existsSync(join(installed, dir)), dir).toBe(false);
    expect(readdirSync(join(installed, 'fixtures'))).toEqual(['orders-sample.csv']);
    // Node looks a bare import up in node_modules of the importing file's folder and of every
    // folder above it: none of them may hold a dev dependency.
    const lookups: string[] = [];
    for (let dir = installed; ; dir = dirname(dir)) {
      lookups.push(join(dir, 'node_modules'));
      if (dir === parse(dir).root) break;
    }
    // ajv and ajv-formats are devDependencies of ours (the tests validate answers against the
    // OpenAPI document) and also what fastify itself runs on: installed as fastify's, not as ours.
    const runtimeToo = new Set(['ajv', 'ajv-formats']);
    const reachable = Object.keys(pkg.devDependencies)
      .filter((name) => !runtimeToo.has(name))
      .flatMap((name) => lookups.map((m) => join(m, ...name.split('/'))).filter(existsSync));
    expect(reachable).toEqual([]);
    expect(tmp.startsWith(root)).toBe(false);
  });

  it('svc --version and svc --help', () => {
    const version = svc(['--version']);
    expect(version).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    const help = svc(['--help']);
    expect(help.code, help.stderr).toBe(0);
    for (const command of ['auth', 'contacts', 'orders', 'events', 'api', 'sandbox'])
      expect(help.stdout).toMatch(new RegExp(`^ +${command}\\b`, 'm'));
  });

  it('svc --sandbox orders import <the shipped sample> --initial-sync: the README summary, exit 4 for the 8 invalid rows', () => {
    const r = svc(['--sandbox', 'orders', 'import', join(installed, 'fixtures', 'orders-sample.csv'), '--initial-sync']);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toMatch(/^rows\t1007\ncreated\t985\nupdated\t14\nunconfirmed\t0\nrejected\t8\nfailed\t0\n/);
    expect(r.stderr).toMatch(/8 row\(s\) rejected and 0 failed out of 1007/);
    expect(existsSync(join(svcEnv.SVC_DATA_DIR, 'sandbox.db'))).toBe(true);
  });

  it('svc sandbox start --port 0 --json: one JSON line, serves the API, exits 0 on SIGTERM', async () => {
    const child = spawn(svcBin, ['sandbox', 'start', '--port', '0', '--json'], {
      cwd: work,
      env: svcEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString('utf8');
      });
      const exit = once(child, 'exit');
      const exitedEarly = exit.then(([code]) => Promise.reject(new Error(`exited ${code} before printing: ${stderr}`)));
      const [first] = (await Promise.race([once(createInterface({ input: child.stdout }), 'line'), exitedEarly])) as [string];
      const line = JSON.parse(first) as { base_url: string };
      expect(line.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${line.base_url}/openapi.json`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { openapi: string }).openapi).toBe('3.1.0');
      // The orders imported by the previous test are in the same data folder.
      const order = await fetch(`${line.base_url}/_sandbox/orders/SO-10001`);
      expect(order.status).toBe(200);
      child.kill('SIGTERM');
      expect(await exit).toEqual([0, null]);
      expect(stderr).toBe('');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
