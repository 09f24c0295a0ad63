/** io/wrap.ts: a command given on its own line to be copied is never broken (a pasted line break would run half of it). */
import { describe, expect, it } from 'vitest';
import { wrapMessage } from '../../src/io/wrap.js';

describe('wrapMessage', () => {
  it('wraps prose between words but keeps an indented svc command whole', () => {
    const command = "  svc orders import /tmp/shop.csv --map-file /tmp/partial.json --map 'total=Amount Paid' --map order_date=Placed";
    const text = `to import it the same way without questions, run the command below in this folder once more:\n${command}`;
    const lines = wrapMessage(text, 40).split('\n');
    expect(lines).toContain(command);
    expect(lines.filter((l) => l !== command).every((l) => l.length <= 40)).toBe(true);
  });
});
