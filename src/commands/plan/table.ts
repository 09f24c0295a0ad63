/** The plan's human tables: a label, a count, sample line numbers, a note; columns padded. */
import { type PlanCell, sampleText } from '../../bulk/index.js';

export { sampleText };

export function cellJson(c: PlanCell): { count: number; lines: number[] } {
  return { count: c.count, lines: [...c.lines] };
}

/** `title` over rows of label, count, sample, note (empty rows give `title: none`). */
export function planTable(title: string, rows: Array<[string, PlanCell, string]>): string {
  if (rows.length === 0) return `${title}: none`;
  const labelW = Math.max(...rows.map(([l]) => l.length));
  const countW = Math.max(...rows.map(([, c]) => String(c.count).length));
  const sampleW = Math.max(...rows.map(([, c]) => sampleText(c).length));
  const lines = rows.map(([label, c, note]) =>
    `  ${label.padEnd(labelW)}  ${String(c.count).padStart(countW)}  ${sampleText(c).padEnd(sampleW)}${note ? `  ${note}` : ''}`.trimEnd(),
  );
  return [`${title}:`, ...lines].join('\n');
}
