/**
 * The start marks a resumed run reads (bulk/journal.ts), and what identifies this boot of the
 * machine, so that a resumed run can tell whether what the earlier run wrote without fsync is still
 * there: a process that was killed leaves its writes in the page cache (readable after it), a power
 * cut or a crash of the machine may lose them. Linux names each boot
 * (`/proc/sys/kernel/random/boot_id`); elsewhere the boot's time, from the clock and the uptime
 * (sleep included), in whole seconds.
 */
import { readFileSync } from 'node:fs';
import { uptime } from 'node:os';

/** Two boot times this close (seconds) are one boot: the clock may be adjusted a little between runs. */
const BOOT_TIME_SLACK_S = 10;

export function bootId(): string {
  try {
    const id = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    if (/^[0-9a-f-]{16,}$/i.test(id)) return id;
  } catch {
    /* not Linux: the boot's time below */
  }
  return `t${Math.round(Date.now() / 1000 - uptime())}`;
}

/** Whether a boot id written by an earlier run names the boot this process runs in. */
export function isThisBoot(id: string, current: string = bootId()): boolean {
  if (id === current) return true;
  if (!id.startsWith('t') || !current.startsWith('t')) return false;
  const a = Number(id.slice(1));
  const b = Number(current.slice(1));
  // A clock stepped by more than the slack makes a boot look new: the safe side (the resumed run
  // trusts only the fsynced marks).
  return Number.isFinite(a) && Number.isFinite(b) && Math.abs(a - b) <= BOOT_TIME_SLACK_S;
}

/**
 * The start marks of a journal's runs. `coveredUpTo`: the highest fsynced window mark. `maybeSentUpTo`:
 * every row up to it may have been sent; per run, its exact `X` records when it was an exact
 * verb's run on this boot of the machine (a killed process's writes are in the page cache),
 * else the highest of its marks (`S` fsynced before the rows it covers were sent).
 */
export function readMarks(lines: readonly string[]): { coveredUpTo: number; maybeSentUpTo: number } {
  const current = bootId();
  let coveredUpTo = 0;
  let maybeSentUpTo = 0;
  // Records before any `B` (a journal of an earlier version) form a run of unknown boot.
  let run = { boot: undefined as string | undefined, exact: false, s: 0, x: 0 };
  const end = () => {
    const trusted = run.exact && run.boot !== undefined && isThisBoot(run.boot, current);
    maybeSentUpTo = Math.max(maybeSentUpTo, trusted ? run.x : Math.max(run.s, run.x));
  };
  for (const l of lines) {
    const kind = l.slice(0, 2);
    if (kind === 'B ') {
      end();
      const [boot, mode] = l.slice(2).split(' ');
      run = { boot, exact: mode === 'exact', s: 0, x: 0 };
    } else if (kind === 'S ' || kind === 'X ') {
      const n = Number(l.slice(2));
      if (!Number.isInteger(n)) continue;
      if (kind === 'S ') {
        run.s = Math.max(run.s, n);
        coveredUpTo = Math.max(coveredUpTo, n);
      } else run.x = Math.max(run.x, n);
    }
  }
  end();
  return { coveredUpTo, maybeSentUpTo };
}
