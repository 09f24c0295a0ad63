/**
 * The sandbox's rate-limit shapes (PUT /_sandbox/faults `rate_limits`), over real HTTP with the
 * sandbox's clock faked: fixed windows of any length, burst + steady, sliding, in-flight cap,
 * per endpoint, per token or business, with and without RateLimit-* headers.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { http, type TestSandbox, withSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;
let clock = Date.UTC(2026, 0, 1, 10, 0, 0);
let n = 0;

beforeAll(async () => {
  sb = await withSandbox({ now: () => clock });
  token = await sb.tokenWithAllScopes();
});
afterEach(async () => {
  await sb.admin.setFaults({});
});
afterAll(() => sb.close());

const list = (t = token) => http(sb.baseUrl, 'GET', '/v1/contacts', { token: t });
const event = (t = token) =>
  http(sb.baseUrl, 'POST', '/v1/events', { token: t, json: { event_type: 'viewed', email: `rl${++n}@example.com` } });
/** Moves the sandbox's clock to the start of the next window of `seconds`. */
const nextWindow = (seconds: number) => {
  const ms = seconds * 1000;
  clock = clock - (clock % ms) + ms;
};
async function statuses(count: number, call: () => Promise<{ status: number }>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push((await call()).status);
  return out;
}
const setLimits = (rate_limits: object) => http(sb.baseUrl, 'PUT', '/_sandbox/faults', { json: { rate_limits } });

describe('rate_limits: fixed windows', () => {
  it('a one-minute window: the limit passes, then 429 with Retry-After until the window ends (no headers by default)', async () => {
    expect((await setLimits({ windows: [{ limit: 3, window_s: 60 }] })).status).toBe(200);
    nextWindow(60);
    clock += 20_000;
    expect(await statuses(3, list)).toEqual([200, 200, 200]);
    const r = await list();
    expect(r.status).toBe(429);
    expect(r.body.error.code).toBe('rate_limited');
    expect(r.headers.get('retry-after')).toBe('40');
    expect(r.headers.get('ratelimit-remaining')).toBeNull();
    clock += 39_500;
    expect((await list()).status).toBe(429);
    clock += 500;
    expect((await list()).status).toBe(200);
  });

  it('with headers: RateLimit-Limit/-Remaining/-Reset (delta seconds) and RateLimit-Policy on every answer', async () => {
    await setLimits({ windows: [{ limit: 2, window_s: 10 }], headers: true });
    nextWindow(10);
    clock += 2500;
    const a = await list();
    expect(a.headers.get('ratelimit-limit')).toBe('2');
    expect(a.headers.get('ratelimit-remaining')).toBe('1');
    expect(a.headers.get('ratelimit-reset')).toBe('8');
    expect(a.headers.get('ratelimit-policy')).toBe('2;w=10');
    expect((await list()).headers.get('ratelimit-remaining')).toBe('0');
    const c = await list();
    expect(c.status).toBe(429);
    expect(c.headers.get('ratelimit-remaining')).toBe('0');
    expect(c.headers.get('retry-after')).toBe('8');
  });

  it('X-RateLimit-* spelling: Reset as an epoch time in seconds', async () => {
    await setLimits({ windows: [{ limit: 5, window_s: 30 }], headers: 'x-ratelimit' });
    nextWindow(30);
    const a = await list();
    expect(a.headers.get('x-ratelimit-limit')).toBe('5');
    expect(a.headers.get('x-ratelimit-remaining')).toBe('4');
    expect(Number(a.headers.get('x-ratelimit-reset'))).toBe((clock + 30_000) / 1000);
    expect(a.headers.get('ratelimit-limit')).toBeNull();
  });

  it('burst and steady together: the burst caps each second, the steady window the whole; a refused request uses up neither', async () => {
    await setLimits({
      windows: [
        { limit: 3, window_s: 1 },
        { limit: 5, window_s: 10 },
      ],
      headers: true,
    });
    nextWindow(10);
    expect(await statuses(4, list)).toEqual([200, 200, 200, 429]);
    clock += 1000;
    const second = [];
    for (let i = 0; i < 3; i++) second.push(await list());
    expect(second.map((r) => r.status)).toEqual([200, 200, 429]);
    // Refused by the steady window: it says when that one reopens, not the burst's 1 s.
    expect(second[2]?.headers.get('retry-after')).toBe('9');
    expect(second[2]?.headers.get('ratelimit-limit')).toBe('5');
    expect(second[2]?.headers.get('ratelimit-policy')).toBe('3;w=1, 5;w=10');
    nextWindow(10);
    expect(await statuses(3, list)).toEqual([200, 200, 200]);
  });

  it('start "first_request": the window starts at the first request after the last one ended, not on the clock', async () => {
    await setLimits({ windows: [{ limit: 2, window_s: 10, start: 'first_request' }], headers: true });
    nextWindow(10);
    clock += 7000;
    // On the clock the window would end 3 s from now; from this first request it ends in 10 s.
    expect(await statuses(2, list)).toEqual([200, 200]);
    clock += 4000;
    const r = await list();
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('6');
    expect(r.headers.get('ratelimit-reset')).toBe('6');
    clock += 5999;
    expect((await list()).status).toBe(429);
    clock += 1;
    // A new window, from this request: 10 s again.
    expect(await statuses(3, list)).toEqual([200, 200, 429]);
    clock += 9999;
    expect((await list()).status).toBe(429);
    clock += 1;
    expect((await list()).status).toBe(200);
    // GET returns the setting as given; "clock" (the default) is not echoed.
    const got = await http(sb.baseUrl, 'GET', '/_sandbox/faults');
    expect(got.body.rate_limits.windows).toEqual([{ limit: 2, window_s: 10, start: 'first_request' }]);
  });

  it('fractional windows compress a minute: 2 per 0.5 s', async () => {
    await setLimits({ windows: [{ limit: 2, window_s: 0.5 }] });
    nextWindow(1);
    expect(await statuses(3, list)).toEqual([200, 200, 429]);
    clock += 500;
    expect(await statuses(2, list)).toEqual([200, 200]);
  });
});

describe('rate_limits: sliding window', () => {
  it('counts the last window_s seconds: room comes back as the oldest requests leave it', async () => {
    await setLimits({ windows: [{ limit: 3, window_s: 10, sliding: true }], headers: true });
    nextWindow(10);
    clock += 9000;
    expect((await list()).status).toBe(200); // t = 9 s
    clock += 2000;
    expect(await statuses(2, list)).toEqual([200, 200]); // t = 11 s: a fixed window would have reset
    const refused = await list();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('8'); // the request of t = 9 s leaves at 19 s
    clock += 8000;
    const back = await list();
    expect(back.status).toBe(200);
    expect(back.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('without headers: only the 429 and its Retry-After say anything', async () => {
    await setLimits({ windows: [{ limit: 1, window_s: 4, sliding: true }] });
    expect((await list()).status).toBe(200);
    const r = await list();
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('4');
    expect([...r.headers.keys()].filter((k) => k.includes('ratelimit'))).toEqual([]);
  });
});

describe('rate_limits: in flight, per endpoint, per business', () => {
  it('max_in_flight: requests beyond the cap are answered 429 at once with Retry-After', async () => {
    await http(sb.baseUrl, 'PUT', '/_sandbox/faults', { json: { latency_ms: 300, rate_limits: { max_in_flight: 2 } } });
    const answers = await Promise.all(Array.from({ length: 5 }, () => list()));
    const codes = answers.map((a) => a.status).sort();
    expect(codes).toEqual([200, 200, 429, 429, 429]);
    const refused = answers.find((a) => a.status === 429);
    expect(refused?.body.error.message).toMatch(/in flight/);
    expect(refused?.headers.get('retry-after')).toBe('1');
    // The slots are given back when the answers are sent.
    expect((await Promise.all([list(), list()])).map((a) => a.status)).toEqual([200, 200]);
  });

  it('a window with an endpoint counts that endpoint only', async () => {
    await setLimits({ windows: [{ limit: 1, window_s: 5, endpoint: 'POST /v1/events' }], headers: 'ratelimit' });
    nextWindow(5);
    expect((await event()).status).toBe(200);
    expect((await event()).status).toBe(429);
    const other = await list();
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-limit')).toBeNull();
  });

  it('per token by default; per business counts every token of the business together', async () => {
    const other = await sb.tokenWithAllScopes();
    await setLimits({ windows: [{ limit: 1, window_s: 5 }] });
    nextWindow(5);
    expect((await list()).status).toBe(200);
    expect((await list(other)).status).toBe(200);
    await setLimits({ per: 'business', windows: [{ limit: 1, window_s: 5 }] });
    nextWindow(5);
    expect((await list()).status).toBe(200);
    expect((await list(other)).status).toBe(429);
    const biz = await sb.admin.createBusiness('Elsewhere');
    const elsewhere = await sb.admin.createApiToken(['contacts_read'], biz.id);
    expect((await list(elsewhere.token)).status).toBe(200);
  });

  it('rate_limit_rps keeps its meaning beside rate_limits; GET returns the settings', async () => {
    const body = {
      rate_limit_rps: 1,
      rate_limits: { per: 'token', windows: [{ limit: 10, window_s: 60, sliding: true }], headers: 'none' },
    };
    const r = await http(sb.baseUrl, 'PUT', '/_sandbox/faults', { json: body });
    expect(r.body).toEqual(body);
    expect((await http(sb.baseUrl, 'GET', '/_sandbox/faults')).body).toEqual(body);
    expect(await statuses(2, list)).toEqual([200, 429]);
  });

  it('400 naming the field for a bad shape', async () => {
    for (const [bad, field] of [
      [{ windows: [{ limit: 0, window_s: 1 }] }, 'rate_limits.windows[0].limit'],
      [{ windows: [{ limit: 1, window_s: 0 }] }, 'rate_limits.windows[0].window_s'],
      [{ windows: [{ limit: 1 }] }, 'rate_limits.windows[0].window_s'],
      [{ windows: [{ limit: 1, window_s: 1, endpoint: 'events' }] }, 'rate_limits.windows[0].endpoint'],
      [{ windows: [{ limit: 1, window_s: 1, burst: 2 }] }, 'rate_limits.windows[0].burst'],
      [{ windows: [{ limit: 1, window_s: 1, start: 'now' }] }, 'rate_limits.windows[0].start'],
      [{ windows: [{ limit: 1, window_s: 1, sliding: true, start: 'first_request' }] }, 'rate_limits.windows[0].start'],
      [{ per: 'ip' }, 'rate_limits.per'],
      [{ headers: 'yes' }, 'rate_limits.headers'],
      [{ max_in_flight: 1.5 }, 'rate_limits.max_in_flight'],
      [{ window: [] }, 'rate_limits.window'],
      [[], 'rate_limits'],
    ] as const) {
      const r = await setLimits(bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(
        r.body.error.details.map((d: { field: string }) => d.field),
        JSON.stringify(bad),
      ).toContain(field);
    }
  });
});
