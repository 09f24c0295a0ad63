import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (p: string) => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');

describe('docs', () => {
  it("the README's 'Behaviour where the spec is silent' is docs/spec-decisions.md, word for word", () => {
    const readme = read('README.md');
    const start = readme.indexOf('## Behaviour where the spec is silent');
    const end = readme.indexOf('\n## ', start + 1);
    expect(start).toBeGreaterThan(0);
    expect(readme.slice(start, end).trim()).toBe(read('docs/spec-decisions.md').trim());
  });
});
