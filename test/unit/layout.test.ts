/**
 * The one layout rule dependency-cruiser cannot see (it follows imports, not calls): nothing but
 * src/main.ts ends the process. Everything else returns an exit code or throws a typed error.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

/** Every TypeScript file under src/, as a path relative to the repository. */
function sourceFiles(dir = join(root, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [relative(root, path)] : [];
  });
}

const EXIT_PATTERNS = [
  /\bprocess\s*\.\s*(exit|reallyExit)\b/, // process.exit(…), process.reallyExit, or a reference to them
  /\bprocess\s*\[\s*['"`](exit|reallyExit)['"`]\s*\]/, // process['exit']
  /\{[^}]*\b(exit|reallyExit)\b[^}]*\}\s*=\s*(globalThis\.)?process\b/, // const { exit } = process
];

/** The lines of `code` that end the process, comments left out. */
function exitCalls(code: string): string[] {
  const withoutComments = code.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:])\/\/.*$/gm, '$1');
  return withoutComments
    .split('\n')
    .map((line, i) => ({ line: line.trim(), n: i + 1 }))
    .filter(({ line }) => EXIT_PATTERNS.some((p) => p.test(line)))
    .map(({ line, n }) => `${n}: ${line}`);
}

describe('layout: process.exit', () => {
  it('recognises the ways to end the process, and not exitCode or comments', () => {
    expect(exitCalls('process.exit(1);')).toHaveLength(1);
    expect(exitCalls("if (x) process['exit'](0);")).toHaveLength(1);
    expect(exitCalls('const { exit } = process;')).toHaveLength(1);
    expect(exitCalls('const stop = process.exit;')).toHaveLength(1);
    expect(exitCalls('process.exitCode = 2;\n// never process.exit here\n/* nor process.exit(1) */')).toEqual([]);
  });

  it('nothing but src/main.ts calls process.exit', () => {
    const files = sourceFiles();
    expect(files).toContain('src/main.ts');
    const offenders = files
      .filter((file) => file !== 'src/main.ts')
      .flatMap((file) => exitCalls(readFileSync(join(root, file), 'utf8')).map((call) => `${file}:${call}`));
    expect(offenders, 'return an exit code (or throw a typed error) and let main.ts end the process').toEqual([]);
  });
});

describe('layout: readable functions', () => {
  // Functions, not files, are what a reader must hold in their head: biome's function-length and
  // cognitive-complexity rules are errors for src/ (biome.json's override; `npm run lint`). A file
  // may be long when it is one cohesive thing. Tests are lists of cases (a describe callback grows
  // with them): the rules are for the product's code.
  it('biome.json turns both rules on as errors for src/, at 80 lines and the default complexity', () => {
    const biome = JSON.parse(readFileSync(join(root, 'biome.json'), 'utf8')) as {
      overrides?: { includes?: string[]; linter?: { rules?: { complexity?: Record<string, unknown> } } }[];
    };
    const forSrc = biome.overrides?.find((o) => o.includes?.includes('src/**'))?.linter?.rules?.complexity;
    expect(forSrc).toEqual({
      noExcessiveLinesPerFunction: { level: 'error', options: { maxLines: 80 } },
      noExcessiveCognitiveComplexity: 'error',
    });
  });

  it('every suppression of them in src/ says why in words', () => {
    const unexplained = sourceFiles().flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${file}:${i + 1}` }))
        .filter(({ line }) => /biome-ignore[^:]*lint\/complexity\/noExcessive/.test(line))
        .filter(
          ({ line }) =>
            (/:\s*(.*)$/.exec(line.replace(/^.*?lint\/complexity\/\w+/, ''))?.[1] ?? '').split(/\s+/).filter(Boolean).length < 4,
        )
        .map(({ at }) => at),
    );
    expect(unexplained, 'a suppression names its reason: `// biome-ignore lint/complexity/…: why, in words`').toEqual([]);
  });
});
