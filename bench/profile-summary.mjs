// node bench/profile-summary.mjs FILE.cpuprofile [--top N] — what a V8 CPU profile (node
// --cpu-prof) spent its time on: self time by function (name, file, line) and by file, in % of
// the profile's samples and of its busy (non-idle) samples. Build with SVC_NO_MINIFY=1 node
// build.mjs first for readable names in dist/. Prints figures; asserts nothing.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const TOP = topAt < 0 ? 40 : Number(args.splice(topAt, 2)[1]);
const profile = JSON.parse(readFileSync(args[0], 'utf8'));

const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
// Sample durations: timeDeltas[i] is the time before sample i.
const selfUs = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const byFunction = new Map();
const byFile = new Map();
const byPackage = new Map();
let idle = 0;
for (const [id, us] of selfUs) {
  const { callFrame: f } = nodes.get(id);
  if (f.functionName === '(idle)') idle += us;
  const file = f.url ? basename(f.url.replace(/^file:\/\//, '')) : '';
  const key = `${f.functionName || '(anonymous)'} ${file}${file ? `:${f.lineNumber + 1}` : ''}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  const where = file || f.functionName;
  byFile.set(where, (byFile.get(where) ?? 0) + us);
  const url = f.url ?? '';
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  const group = pkg
    ? pkg
    : url.startsWith('node:')
      ? 'node (JavaScript)'
      : url.includes('/dist/')
        ? 'svc (dist/)'
        : url
          ? url
          : f.functionName.startsWith('(')
            ? f.functionName
            : 'native (system calls, V8 built-ins)';
  byPackage.set(group, (byPackage.get(group) ?? 0) + us);
}
const busy = total - idle;
const pct = (us, of) => `${((100 * us) / of).toFixed(1).padStart(5)}%`;
const show = (title, map) => {
  console.log(`\n${title}`);
  for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
    console.log(`${(us / 1000).toFixed(0).padStart(7)} ms ${pct(us, total)} ${k === '(idle)' ? '      ' : pct(us, busy)}  ${k}`);
  }
};
console.log(`${args[0]}: ${(total / 1e6).toFixed(2)} s sampled, ${(busy / 1e6).toFixed(2)} s busy (${pct(busy, total).trim()})`);
console.log('columns: self time, % of all samples, % of busy samples');
show('by package', byPackage);
show('by file', byFile);
show('by function', byFunction);
