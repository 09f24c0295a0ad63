/** CSV cells that spreadsheets would not run as formulas (OWASP CSV injection guidance). */

const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Prefixes a cell with `'` when a spreadsheet would read it as a formula: cells starting with
 * `=`, `@`, tab or carriage return, and cells starting with `+` or `-` unless they are a plain
 * number (so an E.164 phone such as +14155550100 stays as it is).
 */
export function escapeFormula(cell: string): string {
  if (cell.length === 0) return cell;
  const first = cell[0];
  if (first === '=' || first === '@' || first === '\t' || first === '\r') return `'${cell}`;
  if ((first === '+' || first === '-') && !PLAIN_NUMBER.test(cell)) return `'${cell}`;
  return cell;
}

/** Turns a value into a CSV cell: null/undefined empty, objects as JSON, then formula-escaped. */
export function toCsvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return escapeFormula(JSON.stringify(value));
  return escapeFormula(String(value));
}
