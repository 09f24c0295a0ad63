/** Output formats of list commands (kept apart from the printers so the command tree stays light). */
export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
export type ListFormat = (typeof OUTPUT_FORMATS)[number];
