import { describe, expect, it } from 'vitest';
import { RateController } from '../../src/bulk/rate-controller.js';

/** A controller on a hand-moved clock: no timers, no sleeping. */
function controller(ceiling = 16, cooldownMs = 1000) {
  const clock = { t: 1_000_000 };
  const pace = new RateController({ ceiling, floor: 1, cooldownMs, pauseOnThrottle: true, now: () => clock.t });
  return { pace, clock };
}

describe('RateController (pure AIMD on an injected clock)', () => {
  it('a throttle before any completion halves the limit and pauses starts for the server wait', () => {
    const { pace, clock } = controller();
    pace.throttle(500);
    expect(pace.limit).toBe(8);
    expect(pace.rate).toBeUndefined();
    expect(pace.startDelay()).toBe(500);
    clock.t += 500;
    expect(pace.startDelay()).toBe(0);
  });

  it('throttles within the cooldown count once', () => {
    const { pace, clock } = controller();
    pace.throttle(100);
    clock.t += 10;
    pace.throttle(100);
    pace.throttle(100);
    expect(pace.throttles).toBe(3);
    expect(pace.congestionEvents).toBe(1);
    expect(pace.limit).toBe(8);
    clock.t += 1000;
    pace.throttle(100);
    expect(pace.congestionEvents).toBe(2);
    expect(pace.limit).toBe(4);
    expect(pace.minLimitSeen).toBe(4);
  });

  it('sets a start-rate cap at 90% of the completion rate measured over the last second', () => {
    const { pace, clock } = controller();
    pace.startRun();
    // 200 completions spread over one second: 200/s.
    for (let i = 0; i < 200; i++) {
      clock.t += 5;
      pace.success();
    }
    pace.throttle(1000);
    // The window is the last ten 100 ms buckets (the current one partly filled): 90% of ~181/s.
    expect(pace.rate).toBeGreaterThan(150);
    expect(pace.rate).toBeLessThanOrEqual(180);
    // The bucket is emptied at the event; one start then owes a token: two tokens' time to wait.
    pace.started();
    const rate = pace.rate as number;
    expect(pace.startDelay()).toBe(Math.ceil(2000 / rate));
  });

  it('probes back up: +1 to the limit per `limit` successes after the cooldown, never above the ceiling', () => {
    const { pace, clock } = controller(4);
    pace.throttle(0);
    expect(pace.limit).toBe(2);
    clock.t += 1001;
    pace.success();
    pace.success();
    expect(pace.limit).toBe(3);
    for (let i = 0; i < 20; i++) pace.success();
    expect(pace.limit).toBe(4);
  });

  it('never goes below the floor', () => {
    const { pace, clock } = controller(2);
    for (let i = 0; i < 5; i++) {
      pace.throttle(0);
      clock.t += 1001;
    }
    expect(pace.limit).toBe(1);
  });

  it('a 429 whose RateLimit-Remaining is over 0 refused a request over an in-flight cap: the limit comes down to the requests in flight, the rate stays', () => {
    const { pace } = controller();
    expect(pace.throttle(1000, { sentAt: 16, active: 10, remaining: 40 })).toBe('in_flight');
    expect(pace.limit).toBe(10);
    expect(pace.inFlightCap).toBe(10);
    expect(pace.rate).toBeUndefined();
    expect(pace.congestionEvents).toBe(0);
    expect(pace.startDelay()).toBe(0);
    // Nothing remains: the window's refusal (the rate rules: halved, paused).
    expect(pace.throttle(1000, { sentAt: 5, active: 4, remaining: 0 })).toBe('rate');
    expect(pace.congestionEvents).toBe(1);
    expect(pace.limit).toBe(5);
  });

  it('without headers: sent with more in flight than any success, an in-flight refusal; sent at a level that succeeded, a rate refusal', () => {
    const { pace, clock } = controller();
    // A burst of 16 against a cap of 10: the refusals come first, each with fewer others in flight.
    for (let k = 11; k <= 16; k++) expect(pace.throttle(1000, { sentAt: k, active: 26 - k })).toBe('in_flight');
    expect(pace.limit).toBe(10);
    for (let i = 0; i < 100; i++) {
      clock.t += 5;
      pace.success(10);
    }
    // A request over the cap learned is still the cap's; one at a level that succeeded is the rate's.
    expect(pace.throttle(1000, { sentAt: 11, active: 10 })).toBe('in_flight');
    expect(pace.throttle(1000, { sentAt: 8, active: 7 })).toBe('rate');
    expect(pace.congestionEvents).toBe(1);
    expect(pace.rate).toBeGreaterThan(0);
    // A run whose first 429 was a window's: retries coming back together, more in flight than
    // ever succeeded, are still the window's.
    const windowFirst = controller();
    for (let i = 0; i < 50; i++) windowFirst.pace.success(8);
    expect(windowFirst.pace.throttle(1000, { sentAt: 8, active: 7 })).toBe('rate');
    windowFirst.clock.t += 2000;
    expect(windowFirst.pace.throttle(1000, { sentAt: 14, active: 3 })).toBe('rate');
    expect(windowFirst.pace.inFlightCap).toBeUndefined();
    // Alone in flight, a request is over no cap.
    const other = controller().pace;
    expect(other.throttle(1000, { sentAt: 1, active: 0 })).toBe('rate');
    // A long window's 429 without headers is the window's, whatever was in flight.
    expect(controller().pace.throttle(5000, { sentAt: 9, active: 8 })).toBe('rate');
  });

  it('at the cap: one more request after 2 s of quiet; a refused probe waits twice as long; a probe that ran full raises the cap', () => {
    const { pace, clock } = controller();
    /** At the cap of 10: no probe after `ms` - 1 of quiet, one more request allowed (11) at `ms`. */
    const expectProbeAfter = (ms: number) => {
      clock.t += ms - 1;
      pace.success(10);
      expect(pace.limit).toBe(10);
      clock.t += 1;
      pace.success(10);
      expect(pace.limit).toBe(11);
    };
    pace.throttle(1000, { sentAt: 12, active: 10 });
    expect(pace.limit).toBe(10);
    expectProbeAfter(2000);
    // The probe is refused: back to 10, the next probe after 4 s.
    pace.throttle(1000, { sentAt: 11, active: 10 });
    expect(pace.limit).toBe(10);
    expectProbeAfter(4000);
    // This probe runs full (a request sent with 11 in flight succeeds) as long (4 s): the cap is 11.
    pace.success(11);
    clock.t += 3999;
    pace.success(11);
    expect(pace.inFlightCap).toBe(10);
    clock.t += 1;
    pace.success(11);
    expect(pace.inFlightCap).toBe(11);
    expect(pace.limit).toBe(11);
    // The next probe after 2 s again.
    clock.t += 2000;
    pace.success(11);
    expect(pace.limit).toBe(12);
  });
});

describe('a slow start does not slow the rest of the run (issue 36)', () => {
  /**
   * 2,000 rows at up to 16 in flight, 5 ms each; the service refuses the first 30 requests with
   * a 2-s Retry-After (a warming cache, a shared limit another client had spent), then takes
   * everything. Retries go out after their wait, as the client sends them.
   */
  function run(rows: number): { elapsedMs: number; pace: number | undefined } {
    const clock = { t: Date.UTC(2026, 0, 1) };
    const pace = new RateController({ ceiling: 16, floor: 1, cooldownMs: 1000, pauseOnThrottle: true, now: () => clock.t });
    pace.startRun();
    const start = clock.t;
    let refusals = 30;
    let next = 0;
    let done = 0;
    let inFlight = 0;
    const events: { at: number; ok: boolean }[] = [];
    const send = () => {
      const ok = refusals <= 0;
      if (!ok) refusals--;
      events.push({ at: clock.t + (ok ? 5 : 1), ok });
    };
    while (done < rows && clock.t - start < 3_600_000) {
      events.sort((a, b) => a.at - b.at);
      while (events.length > 0 && (events[0] as { at: number }).at <= clock.t) {
        const e = events.shift() as { at: number; ok: boolean };
        if (e.ok) {
          inFlight--;
          done++;
          pace.success(inFlight + 1);
        } else {
          pace.throttle(2000, { sentAt: inFlight, active: inFlight - 1 });
          // The retry of the refused row, after its wait, in its own slot.
          events.push({ at: clock.t + 2000, ok: true });
        }
      }
      while (next < rows && inFlight < pace.limit && pace.startDelay() === 0) {
        pace.started();
        next++;
        inFlight++;
        send();
      }
      clock.t += 1;
    }
    return { elapsedMs: clock.t - start, pace: pace.pace };
  }

  it('thirty early 429s with a 2-s wait: 2,000 rows in 90 s at most, not at the first seconds’ rate', () => {
    const r = run(2000);
    // Held at the rate learned in the first seconds (about 5 rows/s, probed up 0.5 % a second) the
    // run took 470 s; it now takes about 77 s and ends at hundreds of rows a second.
    expect(r.elapsedMs).toBeLessThan(90_000);
    expect(r.pace ?? Number.POSITIVE_INFINITY).toBeGreaterThan(100);
  });
});
