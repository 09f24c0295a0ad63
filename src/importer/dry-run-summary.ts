/**
 * What a dry run shows of the values it would send, so a wrong mapping is seen before anything
 * is: the first requests as they would be sent, the sum and range of the totals per currency
 * (exact decimals, never floats), the range of the order dates, and the share of orders with a
 * phone.
 */
import type { ValidOrder } from '../contract/orders.js';

export const PREVIEW_ROWS = 3;

export interface CurrencyTotals {
  orders: number;
  sum: string;
  min: string;
  max: string;
}

export interface ValuesSummary {
  /** The first orders as they would be sent (the request bodies). */
  preview: ValidOrder[];
  /** Per currency, in the order first seen. */
  totals: Record<string, CurrencyTotals>;
  /** The earliest and latest order_date as sent (compared as instants; a date alone is midnight UTC). */
  dates: { first: string; last: string } | null;
  /** Orders with a phone, of the valid ones. */
  with_phone: { orders: number; of: number; percent: number };
}

/** A decimal string as an integer of minor units at `scale` decimals. */
function minor(value: string, scale: number): bigint {
  const [whole = '0', frac = ''] = value.replace(/^-/, '').split('.');
  const n = BigInt(`${whole}${frac.padEnd(scale, '0')}`);
  return value.startsWith('-') ? -n : n;
}

function decimal(n: bigint, scale: number): string {
  const neg = n < 0n;
  const digits = (neg ? -n : n).toString().padStart(scale + 1, '0');
  const s = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return neg ? `-${s}` : s;
}

const scaleOf = (v: string) => (v.includes('.') ? v.length - v.indexOf('.') - 1 : 0);

function instant(date: string): number {
  return Date.parse(date.length === 10 ? `${date}T00:00:00Z` : date);
}

/** Collects the summary one valid order at a time (memory: the preview and one entry per currency). */
interface CurrencyTotal {
  orders: number;
  scale: number;
  sum: bigint;
  min: string;
  max: string;
}

/** Adds an order's total to its currency's sum, count, least and greatest. */
function addTotal(totals: Map<string, CurrencyTotal>, currency: string, t: string): void {
  const entry = totals.get(currency);
  if (!entry) {
    totals.set(currency, { orders: 1, scale: scaleOf(t), sum: minor(t, scaleOf(t)), min: t, max: t });
    return;
  }
  const scale = Math.max(entry.scale, scaleOf(t));
  if (scale > entry.scale) entry.sum *= 10n ** BigInt(scale - entry.scale);
  entry.scale = scale;
  entry.sum += minor(t, scale);
  entry.orders++;
  if (minor(t, scale) < minor(entry.min, scale)) entry.min = t;
  if (minor(t, scale) > minor(entry.max, scale)) entry.max = t;
}

export function createValuesSummary(): { add(order: ValidOrder): void; result(): ValuesSummary } {
  const preview: ValidOrder[] = [];
  const totals = new Map<string, CurrencyTotal>();
  let first: { at: number; value: string } | undefined;
  let last: { at: number; value: string } | undefined;
  let phones = 0;
  let orders = 0;
  return {
    add(order) {
      orders++;
      if (preview.length < PREVIEW_ROWS) preview.push(order);
      if (order.phone !== undefined) phones++;
      addTotal(totals, order.currency, order.total);
      const at = instant(order.order_date);
      if (!first || at < first.at) first = { at, value: order.order_date };
      if (!last || at > last.at) last = { at, value: order.order_date };
    },
    result() {
      const out: ValuesSummary['totals'] = {};
      for (const [currency, e] of totals) out[currency] = { orders: e.orders, sum: decimal(e.sum, e.scale), min: e.min, max: e.max };
      return {
        preview,
        totals: out,
        dates: first && last ? { first: first.value, last: last.value } : null,
        with_phone: { orders: phones, of: orders, percent: orders === 0 ? 0 : Math.round((phones / orders) * 1000) / 10 },
      };
    },
  };
}

/** The summary as the lines a person reads after `dry run: …`. */
export function describeValues(v: ValuesSummary): string[] {
  const lines: string[] = [];
  if (v.preview.length > 0) {
    lines.push(`the first ${v.preview.length} request(s) as they would be sent:`);
    for (const o of v.preview) lines.push(`  ${JSON.stringify(o)}`);
  }
  const currencies = Object.entries(v.totals);
  if (currencies.length > 0) {
    lines.push('totals:');
    for (const [c, t] of currencies) lines.push(`  ${c}: ${t.orders} order(s), sum ${t.sum}, from ${t.min} to ${t.max}`);
  }
  if (v.dates) lines.push(`order dates: ${v.dates.first} to ${v.dates.last}`);
  if (v.with_phone.of > 0) lines.push(`with a phone: ${v.with_phone.orders} of ${v.with_phone.of} (${v.with_phone.percent}%)`);
  return lines;
}
