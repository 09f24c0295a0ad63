/**
 * Order ids that differ only in Unicode normalisation: `Café-1` typed on one system (é, U+00E9,
 * composed: NFC) and exported from another (e + U+0301, decomposed: NFD). They look the same but
 * are other strings; the service keys an order on its id as given, so they are two orders, and
 * svc compares them as given too (rewriting an id would create an order nobody asked for, or
 * merge two that are really distinct). A person most likely meant one, so each pair is named,
 * with both lines, as a warning. Only ids with a character beyond ASCII can differ this way, so
 * the common file costs one regular-expression test per row and no memory.
 */

export interface IdAt {
  id: string;
  line: number;
}

/** Two ids on two lines, equal once normalised (NFC), not as written. */
export interface NormalisationTwin {
  first: IdAt;
  second: IdAt;
}

const NON_ASCII = /[^\u0000-\u007f]/;

export class NormalisationTwins {
  /** NFC form → each way of writing it seen so far, with its first line. */
  private readonly forms = new Map<string, IdAt[]>();

  /** The earlier id this one differs from only in normalisation (once per new way of writing it), or undefined. */
  check(id: string, line: number): NormalisationTwin | undefined {
    if (id === '' || !NON_ASCII.test(id)) return undefined;
    const key = id.normalize('NFC');
    const seen = this.forms.get(key);
    if (seen === undefined) {
      this.forms.set(key, [{ id, line }]);
      return undefined;
    }
    if (seen.some((s) => s.id === id)) return undefined;
    const first = seen[0] as IdAt;
    seen.push({ id, line });
    return { first, second: { id, line } };
  }
}

/** How an id is written: composed (NFC), decomposed (NFD) or neither. */
export function normalisationForm(id: string): string {
  if (id === id.normalize('NFC')) return 'composed, NFC';
  if (id === id.normalize('NFD')) return 'decomposed, NFD';
  return 'neither NFC nor NFD';
}

/** The warning for a pair: both ids, their lines and forms, what svc does about it. */
export function describeTwin(t: NormalisationTwin): string {
  const at = (x: IdAt) => `line ${x.line}: ${JSON.stringify(x.id)} (${normalisationForm(x.id)})`;
  return (
    `order ids that differ only in Unicode normalisation: ${at(t.first)} and ${at(t.second)}; ` +
    'they look alike but are sent as two orders (compared as given): if they are one order, write its id alike on both lines'
  );
}

/** Passes batches of rows through, calling `onTwin` for each pair of ids found (rows unchanged). */
export async function* watchTwins<T extends { id?: string; line: number }>(
  batches: AsyncIterable<T[]>,
  onTwin: (twin: NormalisationTwin) => void,
): AsyncGenerator<T[]> {
  const twins = new NormalisationTwins();
  for await (const batch of batches) {
    for (const row of batch) {
      const twin = row.id === undefined ? undefined : twins.check(row.id, row.line);
      if (twin) onTwin(twin);
    }
    yield batch;
  }
}
