import { describe, expect, it } from 'vitest';
import { createScheduler } from '../../src/bulk/scheduler.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function* items<T>(list: T[], pulled?: { count: number }): AsyncIterable<T> {
  for (const x of list) {
    if (pulled) pulled.count++;
    yield x;
  }
}

describe('scheduler', () => {
  it('runBatches: items from batches keep key affinity and input order across batch boundaries', async () => {
    const active = new Set<string>();
    const order: number[] = [];
    let overlap = false;
    let peak = 0;
    const rows = Array.from({ length: 90 }, (_, i) => ({ key: `k${i % 3}`, i }));
    const s = createScheduler<{ key: string; i: number }, number>(
      async (row) => {
        if (active.has(row.key)) overlap = true;
        active.add(row.key);
        peak = Math.max(peak, active.size);
        order.push(row.i);
        await tick(row.i % 2);
        active.delete(row.key);
        return row.i;
      },
      { concurrency: 8, keyOf: (r) => r.key },
    );
    // Uneven batches, one of them empty: 1, 0, 7, 64, 18 items.
    const sizes = [1, 0, 7, 64, 18];
    const batches = (async function* () {
      let at = 0;
      for (const n of sizes) {
        yield rows.slice(at, at + n);
        at += n;
      }
    })();
    const settled: number[] = [];
    const stats = await s.runBatches(batches, (_row, r) => {
      if (r.ok) settled.push(r.value);
    });
    expect(overlap).toBe(false);
    expect(peak).toBe(3);
    expect(stats).toMatchObject({ started: 90, settled: 90, inFlight: 0 });
    expect(settled.sort((a, b) => a - b)).toEqual(rows.map((r) => r.i));
    for (const k of [0, 1, 2]) {
      const seen = order.filter((i) => i % 3 === k);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
    }
  });

  it('never runs more than `concurrency` tasks at once and settles every item', async () => {
    let inFlight = 0;
    let peak = 0;
    const s = createScheduler<number, number>(
      async (n) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await tick(n % 3);
        inFlight--;
        return n * 2;
      },
      { concurrency: 5 },
    );
    const results: number[] = [];
    const stats = await s.run(items(Array.from({ length: 100 }, (_, i) => i)), (_item, r) => {
      if (r.ok) results.push(r.value);
    });
    expect(peak).toBe(5);
    expect(results.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i * 2));
    expect(stats).toMatchObject({ started: 100, settled: 100, inFlight: 0, aborted: false });
  });

  it('keeps items with the same key apart and in input order', async () => {
    const active = new Set<string>();
    const order: string[] = [];
    let overlap = false;
    const rows = Array.from({ length: 60 }, (_, i) => ({ key: `k${i % 4}`, i }));
    const s = createScheduler<{ key: string; i: number }, void>(
      async (row) => {
        if (active.has(row.key)) overlap = true;
        active.add(row.key);
        order.push(`${row.key}:${row.i}`);
        await tick(1 + (row.i % 2));
        active.delete(row.key);
      },
      { concurrency: 32, keyOf: (r) => r.key },
    );
    await s.run(items(rows));
    expect(overlap).toBe(false);
    for (const k of ['k0', 'k1', 'k2', 'k3']) {
      const seen = order.filter((o) => o.startsWith(`${k}:`)).map((o) => Number(o.split(':')[1]));
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expect(seen).toHaveLength(15);
    }
  });

  it("several keys per item (a contact's email and phone): no two items sharing any key run together, each key in input order", async () => {
    // Item i holds e<i%5> and, on every other item, p<i%3>; some hold only a phone.
    const rows = Array.from({ length: 120 }, (_, i) => ({
      i,
      keys: i % 7 === 0 ? [`p${i % 3}`] : i % 2 === 0 ? [`e${i % 5}`, `p${i % 3}`] : [`e${i % 5}`],
    }));
    const active = new Set<string>();
    const order: number[] = [];
    let overlap = false;
    let peak = 0;
    let running = 0;
    const s = createScheduler<(typeof rows)[number], void>(
      async (row) => {
        for (const k of row.keys) {
          if (active.has(k)) overlap = true;
          active.add(k);
        }
        running++;
        peak = Math.max(peak, running);
        order.push(row.i);
        await tick(row.i % 3);
        running--;
        for (const k of row.keys) active.delete(k);
      },
      { concurrency: 32, keyOf: (r) => r.keys },
    );
    const stats = await s.run(items(rows));
    expect(overlap).toBe(false);
    expect(stats).toMatchObject({ started: 120, settled: 120, inFlight: 0 });
    expect(peak).toBeGreaterThan(1);
    for (const k of ['e0', 'e1', 'e2', 'e3', 'e4', 'p0', 'p1', 'p2']) {
      const holders = rows.filter((r) => r.keys.includes(k)).map((r) => r.i);
      expect(order.filter((i) => holders.includes(i))).toEqual(holders);
    }
  });

  it('an item that gives the same key twice is not blocked by itself', async () => {
    const s = createScheduler<number, number>(async (n) => n, { concurrency: 4, keyOf: (n) => [`k${n}`, `k${n}`] });
    const stats = await s.run(items([1, 2, 1]));
    expect(stats).toMatchObject({ started: 3, settled: 3 });
  });

  it('pulls lazily: never more than maxBuffered items waiting behind a busy key', async () => {
    const pulled = { count: 0 };
    let maxAhead = 0;
    let done = 0;
    const s = createScheduler<number, void>(
      async () => {
        await tick(1);
        done++;
      },
      { concurrency: 4, keyOf: () => 'same', maxBuffered: 10 },
    );
    const source = (async function* () {
      for (let i = 0; i < 50; i++) {
        pulled.count++;
        maxAhead = Math.max(maxAhead, pulled.count - done);
        yield i;
      }
    })();
    await s.run(source);
    expect(done).toBe(50);
    // one in flight + at most 10 parked + the one being examined
    expect(maxAhead).toBeLessThanOrEqual(12);
  });

  it('halves the limit on a throttle, caps the start rate, pauses, then probes back up', async () => {
    let calls = 0;
    let peakAfterThrottle = 0;
    let inFlight = 0;
    let throttledAt = 0;
    const s = createScheduler<number, void>(
      async (_n, ctx) => {
        calls++;
        inFlight++;
        if (calls === 100) {
          ctx.throttle(50);
          throttledAt = Date.now();
        }
        if (throttledAt && Date.now() - throttledAt < 40) peakAfterThrottle = Math.max(peakAfterThrottle, inFlight);
        await tick(2);
        inFlight--;
      },
      { concurrency: 16, cooldownMs: 100 },
    );
    const run = s.run(items(Array.from({ length: 400 }, (_, i) => i)));
    await tick(5);
    const stats = await run;
    expect(stats.congestionEvents).toBe(1);
    expect(stats.minLimitSeen).toBe(8);
    expect(stats.rate).toBeGreaterThan(0);
    expect(stats.settled).toBe(400);
    // no new start during the pause: only those already in flight
    expect(peakAfterThrottle).toBeLessThanOrEqual(16);
    expect(stats.limit).toBeGreaterThan(8);
  });

  it('a refusal over the in-flight cap: no rate cap, the slot is free meanwhile and taken back shortly before the retry', async () => {
    let running = 0;
    let runningAtRetry = -1;
    let startedWhileWaiting = 0;
    let refusedAt = 0;
    let retriedAt = 0;
    const s = createScheduler<number, void>(
      async (n, ctx) => {
        running++;
        if (refusedAt && !retriedAt) startedWhileWaiting++;
        if (n === 3) {
          // The 4th of 4 sent at once is refused (the service's cap is 3) and retried 600 ms later.
          running--;
          refusedAt = Date.now();
          ctx.throttle(600);
          await tick(600);
          retriedAt = Date.now();
          runningAtRetry = running;
          running++;
        }
        await tick(20);
        running--;
      },
      { concurrency: 4 },
    );
    const stats = await s.run(items(Array.from({ length: 80 }, (_, i) => i)));
    expect(stats.settled).toBe(80);
    expect(stats).toMatchObject({ inFlightCap: 3, inFlightRefusals: 1, congestionEvents: 0, rate: undefined });
    // Three slots worked while the refused one waited (more than the two a held slot would leave)...
    expect(startedWhileWaiting).toBeGreaterThan(40);
    // ...and its retry found room under the cap.
    expect(runningAtRetry).toBeLessThanOrEqual(2);
    expect(retriedAt - refusedAt).toBeGreaterThanOrEqual(590);
  });

  it('a worker may take throttle and signal out of its context and call them on their own', async () => {
    const s = createScheduler<number, number>(
      async (n, { throttle, signal }) => {
        if (n === 3) throttle(10);
        expect(signal.aborted).toBe(false);
        return n;
      },
      { concurrency: 4, cooldownMs: 1000 },
    );
    const results: number[] = [];
    const stats = await s.run(items([1, 2, 3, 4, 5]), (_item, r) => {
      if (r.ok) results.push(r.value);
    });
    expect(results.sort()).toEqual([1, 2, 3, 4, 5]);
    expect(stats.congestionEvents).toBe(1);
  });

  it('a sink that rejects stops the run with its error, after the tasks in flight settle', async () => {
    let settled = 0;
    const s = createScheduler<number, number>(async (n) => n, { concurrency: 2 });
    const run = s.run(items(Array.from({ length: 20 }, (_, i) => i)), async (n) => {
      settled++;
      if (n === 5) throw new Error('disk full');
    });
    await expect(run).rejects.toThrow('disk full');
    expect(settled).toBeLessThan(20);
  });

  it('counts a burst of throttles as one congestion event', async () => {
    const s = createScheduler<number, void>(async () => {}, { concurrency: 16, cooldownMs: 1000 });
    for (let i = 0; i < 10; i++) s.throttle(0);
    expect(s.stats()).toMatchObject({ throttles: 10, congestionEvents: 1, limit: 8 });
  });

  it('stops starting items on abort and resolves once in-flight tasks settle', async () => {
    const controller = new AbortController();
    let started = 0;
    const errors: unknown[] = [];
    const s = createScheduler<number, void>(
      async (_n, ctx) => {
        started++;
        if (started === 10) controller.abort();
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, 5);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(t);
            reject(new Error('aborted'));
          });
        });
      },
      { concurrency: 4, signal: controller.signal },
    );
    const stats = await s.run(items(Array.from({ length: 1000 }, (_, i) => i)), (_i, r) => {
      if (!r.ok) errors.push(r.error);
    });
    expect(stats.aborted).toBe(true);
    expect(stats.started).toBeLessThan(20);
    expect(stats.inFlight).toBe(0);
    expect(errors.length).toBeGreaterThan(0);
  });

  it('awaits beforeStart before each start and rejects when the sink throws', async () => {
    const log: string[] = [];
    const s = createScheduler<number, void>(
      async (n) => {
        log.push(`run ${n}`);
      },
      {
        concurrency: 1,
        beforeStart: async (n) => {
          await tick(1);
          log.push(`before ${n}`);
        },
      },
    );
    await s.run(items([1, 2]));
    expect(log).toEqual(['before 1', 'run 1', 'before 2', 'run 2']);
    const failing = createScheduler<number, void>(async () => {}, { concurrency: 2 });
    await expect(
      failing.run(items([1, 2, 3]), () => {
        throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
  });
});

describe('scheduler: a failing source', () => {
  it('stops starting, lets the tasks in flight settle (and reach onSettled), then rejects with the source error', async () => {
    const settled: number[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const s = createScheduler<number, number>(
      async (n) => {
        await gate;
        return n;
      },
      { concurrency: 4 },
    );
    const source = (async function* () {
      yield [1, 2, 3];
      setTimeout(release, 20);
      throw new Error('EIO: the disk went away');
    })();
    await expect(
      s.runBatches(source, (n, r) => {
        if (r.ok) settled.push(n);
      }),
    ).rejects.toThrow('EIO');
    expect(settled.sort()).toEqual([1, 2, 3]);
    expect(s.stats().inFlight).toBe(0);
  });
});
