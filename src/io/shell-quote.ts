/** Quotes a word for a POSIX shell, only when it needs it (the commands we print for the user to run). */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
