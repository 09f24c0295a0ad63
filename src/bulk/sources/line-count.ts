/** Counting a file's lines, for the plan of a long run (commands/progress.ts). */
import { createReadStream } from 'node:fs';

/** The data lines of a CSV file (its lines but the header): the rows of a plan, about. */
export async function countDataLines(path: string): Promise<number> {
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    if (chunk.length > 0) last = chunk[chunk.length - 1] as number;
  }
  if (last !== 10) lines++;
  return Math.max(0, lines - 1);
}
