// One fast build: an esbuild bundle of the CLI entry with code splitting, so that each
// command's implementation is its own chunk loaded on demand (svc --version loads none of them).
// Third-party packages stay external and are resolved from node_modules at run time, except
// commander, which every start needs and which is cheaper to load inside the entry chunk (with
// @commander-js/extra-typings, its typed re-export, through which the source imports it), and the
// importer's packages (libphonenumber-js, papaparse, csv-stringify, env-paths): ESM resolution of
// their ~120 files one by one cost about 0.1 s of CPU at the start of every import
// (docs/performance.md, "Third round"). They stay dependencies: their licences ship with them.
// Every package is used through its published entry points (libphonenumber-js through
// `libphonenumber-js/max/es6`, its modern build); the build rewrites no package's files.
import { copyFileSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const bundled = new Set(['commander', '@commander-js/extra-typings', 'libphonenumber-js', 'papaparse', 'csv-stringify', 'env-paths']);
const external = Object.keys(pkg.dependencies).filter((name) => !bundled.has(name));

// Build beside dist/ and swap it in, so a process running the old build (a test, a second
// terminal) never sees a half-empty folder.
const tmp = `dist.tmp-${process.pid}`;
await build({
  entryPoints: { main: 'src/main.ts', sandbox: 'src/sandbox/index.ts' },
  outdir: tmp,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  sourcemap: 'linked',
  // SVC_NO_MINIFY=1 keeps names readable in CPU profiles (docs/performance.md).
  minify: process.env.SVC_NO_MINIFY !== '1',
  define: { __SVC_VERSION__: JSON.stringify(pkg.version) },
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
});
// The sandbox's dashboard (served at / by the sandbox): one small browser bundle and its static files.
await build({
  entryPoints: { app: 'src/dashboard/app.ts' },
  outdir: `${tmp}/dashboard`,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  logLevel: 'warning',
});
for (const file of ['index.html', 'app.css', 'favicon.svg']) copyFileSync(`src/dashboard/${file}`, `${tmp}/dashboard/${file}`);
rmSync(new URL('./dist', import.meta.url), { recursive: true, force: true });
renameSync(tmp, 'dist');
