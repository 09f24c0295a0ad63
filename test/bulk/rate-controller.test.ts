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
});
