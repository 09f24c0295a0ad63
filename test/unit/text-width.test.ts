/** io/text-width.ts: the columns a message takes, as string-width counts them for the text svc prints. */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { textWidth } from '../../src/io/text-width.js';

describe('textWidth', () => {
  it('agrees with string-width on ASCII, accents, combining marks, CJK, fullwidth, emoji and escapes', () => {
    const samples = [
      'error: no contact with id ct_123',
      'Café au lait, Zoë, Ñandú',
      'e\u0301 combining',
      '注文 のインポート',
      'ＡＢＣ fullwidth',
      '✅ done 🚀',
      '\u001b[31mred\u001b[0m text',
      'zero\u200bwidth',
    ];
    for (const s of samples) expect(textWidth(s), s).toBe(stringWidth(s));
  });
});
