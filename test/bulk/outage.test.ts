import { describe, expect, it } from 'vitest';
import { answeredBefore, OutageExceededError, OutageGate, type OutageState } from '../../src/bulk/outage.js';
import { NetworkError } from '../../src/client/errors.js';

const refused = () => new NetworkError('connection refused', { kind: 'refused', sent: false });

/** A fake monotonic clock whose sleep advances it (and lets other tasks run). */
function fakeClock() {
  const c = {
    t: 0,
    sleeps: [] as number[],
    now: () => c.t,
    sleep: async (ms: number) => {
      c.sleeps.push(ms);
      c.t += ms;
      await new Promise((r) => setImmediate(r));
    },
  };
  return c;
}

describe('OutageGate', () => {
  it('before any answer a not-sent failure is thrown at once (a service unreachable from the start)', async () => {
    const clock = fakeClock();
    const gate = new OutageGate({ maxOutageMs: 60_000, now: clock.now, sleep: clock.sleep });
    await expect(gate.call(() => Promise.reject(refused()), new AbortController().signal)).rejects.toBeInstanceOf(NetworkError);
    expect(gate.state()).toBeUndefined();
  });

  it('waits out an outage probing every interval, one request at a time, then lets every held request go', async () => {
    const clock = fakeClock();
    const changes: Array<OutageState | undefined> = [];
    const gate = new OutageGate({
      maxOutageMs: 60_000,
      probeIntervalMs: 2000,
      now: clock.now,
      wallNow: () => 1_000_000,
      sleep: clock.sleep,
      onChange: (s) => changes.push(s),
    });
    const signal = new AbortController().signal;
    await gate.call(async () => 'ok', signal); // the run has had an answer
    let down = true;
    let inFlight = 0;
    let maxInFlight = 0;
    const attempts: number[] = [];
    const request = (id: number) => async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      attempts.push(clock.t);
      await new Promise((r) => setImmediate(r));
      inFlight--;
      if (down && clock.t >= 10_000) down = false;
      if (down) throw refused();
      return id;
    };
    const results = await Promise.all([1, 2, 3, 4].map((id) => gate.call(request(id), signal)));
    expect(results).toEqual([1, 2, 3, 4]);
    expect(changes[0]).toEqual({ sinceEpochMs: 1_000_000, elapsedMs: 0 });
    expect(changes.at(-1)).toBeUndefined();
    expect(gate.state()).toBeUndefined();
    // While down: one probe at a time, never more than 2 s apart.
    const probes = attempts.slice(4).filter((t) => t < 10_000);
    for (let i = 1; i < probes.length; i++) expect((probes[i] as number) - (probes[i - 1] as number)).toBeLessThanOrEqual(2000);
    expect(clock.sleeps.every((ms) => ms <= 2000)).toBe(true);
    expect(maxInFlight).toBe(4); // the first failures came together; probing went one by one
  });

  it('a held request whose signal aborts (Ctrl-C during an outage) rejects with the abort reason, unsent, and the others stay held', async () => {
    const gate = new OutageGate({ maxOutageMs: 60_000, probeIntervalMs: 2000 });
    await gate.call(() => Promise.resolve('answered'), new AbortController().signal);
    let attempts = 0;
    const refusing = () => {
      attempts++;
      return Promise.reject(refused());
    };
    const ctrlC = new AbortController();
    const held = gate.call(refusing, ctrlC.signal);
    held.catch(() => undefined);
    // A second request, its own signal: still waiting after the first is aborted.
    const other = new AbortController();
    const waiting = gate.call(refusing, other.signal);
    waiting.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    expect(gate.state()).toBeDefined();
    const before = attempts;
    const stop = new Error('interrupted');
    ctrlC.abort(stop);
    const settled = await Promise.race([
      held.then(
        () => 'resolved',
        (e) => e,
      ),
      new Promise((r) => setTimeout(() => r('still held'), 1000)),
    ]);
    expect(settled).toBe(stop);
    expect(attempts).toBe(before);
    other.abort(stop);
    await expect(waiting).rejects.toBe(stop);
  });

  it('stops with OutageExceededError once the outage outlasts the limit (every held request)', async () => {
    const clock = fakeClock();
    let exceeded: OutageExceededError | undefined;
    const gate = new OutageGate({
      maxOutageMs: 5000,
      probeIntervalMs: 1000,
      now: clock.now,
      sleep: clock.sleep,
      onExceeded: (e) => (exceeded = e),
    });
    const signal = new AbortController().signal;
    await gate.call(async () => 'ok', signal);
    const held = [1, 2, 3].map(() =>
      gate
        .call(() => Promise.reject(refused()), signal)
        .then(
          () => 'sent',
          (e: unknown) => e,
        ),
    );
    const outcomes = await Promise.all(held);
    for (const o of outcomes) expect(o).toBeInstanceOf(OutageExceededError);
    expect(exceeded).toBe(outcomes[0]);
    expect(clock.t).toBeGreaterThan(5000);
    expect(clock.t).toBeLessThanOrEqual(7000);
    expect(gate.stoppedBy).toBe(exceeded);
  });

  it('a clock jump (sleep and wake) counts as one step at most: the run keeps waiting', async () => {
    const clock = fakeClock();
    const gate = new OutageGate({ maxOutageMs: 60_000, probeIntervalMs: 1000, maxStepMs: 30_000, now: clock.now, sleep: clock.sleep });
    const signal = new AbortController().signal;
    await gate.call(async () => 'ok', signal);
    let calls = 0;
    const result = await gate.call(async () => {
      calls++;
      if (calls === 2) clock.t += 3 * 3600_000; // the laptop slept three hours
      if (calls < 5) throw refused();
      return 'back';
    }, signal);
    expect(result).toBe('back');
    expect(gate.stoppedBy).toBeUndefined();
  });

  it('an error that is not "certainly not sent" passes through and does not start an outage', async () => {
    const clock = fakeClock();
    const gate = new OutageGate({ maxOutageMs: 60_000, now: clock.now, sleep: clock.sleep });
    const signal = new AbortController().signal;
    await gate.call(async () => 'ok', signal);
    const reset = new NetworkError('connection lost', { kind: 'reset', sent: true });
    await expect(gate.call(() => Promise.reject(reset), signal)).rejects.toBe(reset);
    expect(gate.state()).toBeUndefined();
  });

  it("a client retry that found no connection: the outage begins, and while it lasts the retry's backoff is cut to the probe interval", async () => {
    const clock = fakeClock();
    const gate = new OutageGate({ maxOutageMs: 60_000, probeIntervalMs: 2000, now: clock.now, sleep: clock.sleep });
    // Before any answer: the client's own bounded retries, untouched.
    const early = { delayMs: 6400 };
    gate.noticeUnreachable(early);
    expect(early.delayMs).toBe(6400);
    expect(gate.state()).toBeUndefined();
    await gate.call(async () => 'ok', new AbortController().signal);
    const late = { delayMs: 6400 };
    gate.noticeUnreachable(late);
    expect(gate.state()).toBeDefined();
    expect(late.delayMs).toBe(2000);
    const short = { delayMs: 300 };
    gate.noticeUnreachable(short);
    expect(short.delayMs).toBe(300);
  });
});

describe('OutageGate: the address known before the first answer', () => {
  /** A request refused `refusals` times, then answered. */
  const refusedThen = (refusals: number) => {
    let n = 0;
    return async () => {
      if (n++ < refusals) throw refused();
      return 'stored';
    };
  };

  it("known from the start (an earlier run's journal): an outage before any answer is waited out", async () => {
    const clock = fakeClock();
    const changes: Array<OutageState | undefined> = [];
    const gate = new OutageGate({
      maxOutageMs: 60_000,
      serviceKnown: true,
      now: clock.now,
      sleep: clock.sleep,
      onChange: (c) => changes.push(c),
    });
    await expect(gate.call(refusedThen(3), new AbortController().signal)).resolves.toBe('stored');
    expect(changes).toHaveLength(2);
    expect(changes[1]).toBeUndefined();
    const retry = { delayMs: 30_000 };
    gate.noticeUnreachable(retry);
    expect(gate.state()).toBeDefined();
  });

  it('the client heard the address answer (a retried 429): an outage before any row is done is waited out', async () => {
    const clock = fakeClock();
    const gate = new OutageGate({ maxOutageMs: 60_000, serviceKnown: Promise.resolve(true), now: clock.now, sleep: clock.sleep });
    await new Promise((r) => setImmediate(r));
    await expect(gate.call(refusedThen(2), new AbortController().signal)).resolves.toBe('stored');
  });

  it('no word yet (or false, or a failure): a row that cannot connect fails at once, as before any answer', async () => {
    const words = [() => new Promise<boolean>(() => undefined), () => Promise.resolve(false), () => Promise.reject(new Error('closed'))];
    for (const word of words) {
      const clock = fakeClock();
      const gate = new OutageGate({ maxOutageMs: 60_000, serviceKnown: word(), now: clock.now, sleep: clock.sleep });
      await new Promise((r) => setImmediate(r));
      await expect(gate.call(refusedThen(1), new AbortController().signal)).rejects.toBeInstanceOf(NetworkError);
      expect(gate.state()).toBeUndefined();
    }
  });

  it('the word coming while rows wait: the next failure begins an outage that is waited out', async () => {
    const clock = fakeClock();
    let say: (yes: boolean) => void = () => undefined;
    const gate = new OutageGate({
      maxOutageMs: 60_000,
      serviceKnown: new Promise<boolean>((r) => (say = r)),
      now: clock.now,
      sleep: clock.sleep,
    });
    await expect(gate.call(refusedThen(1), new AbortController().signal)).rejects.toBeInstanceOf(NetworkError);
    say(true);
    await new Promise((r) => setImmediate(r));
    await expect(gate.call(refusedThen(2), new AbortController().signal)).resolves.toBe('stored');
  });
});

describe('answeredBefore: what a resumed journal says of the address', () => {
  const done = (status?: number) => new Map([[1, { seq: 1, line: 2, id: 'A-1', outcome: 'created', ...(status ? { status } : {}) }]]);
  it('an answer recorded against the same address vouches for it; another address, no status or no journal does not', () => {
    expect(answeredBefore({ service: 'http://127.0.0.1:4010', done: done(201) }, 'http://127.0.0.1:4010')).toBe(true);
    expect(answeredBefore({ service: 'http://127.0.0.1:4010', done: done(201) }, 'http://127.0.0.1:4011')).toBe(false);
    expect(answeredBefore({ service: 'http://127.0.0.1:4010', done: done() }, 'http://127.0.0.1:4010')).toBe(false);
    expect(answeredBefore({ done: done(201) }, 'http://127.0.0.1:4010')).toBe(false);
    expect(answeredBefore(undefined, 'http://127.0.0.1:4010')).toBe(false);
  });
});
