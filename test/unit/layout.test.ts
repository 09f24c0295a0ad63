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

describe('layout: file size', () => {
  // Issue 11's rule: no source file over 400 lines unless it is data. None is data today; a data
  // file (schemas, presets) that must be longer is named here with its reason.
  const DATA_FILES: Record<string, string> = {};
  it('no source file under src/ is over 400 lines', () => {
    const long = sourceFiles()
      .filter((file) => DATA_FILES[file] === undefined)
      .map((file) => ({ file, lines: readFileSync(join(root, file), 'utf8').trimEnd().split('\n').length }))
      .filter(({ lines }) => lines > 400)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long, 'split the file along what its parts do').toEqual([]);
  });
});
