/**
 * Exchanges in flight, in an array of slots (each entry knows its slot) rather than a Set: a
 * Set's hash table is rebuilt every few dozen additions of a busy import, and a dropped table left
 * in the old generation still points at the exchanges it held, so the scavenger kept every
 * exchange of a run (its request, answer head and buffers: some 4 KB) alive until the next full
 * collection: 6 × the bytes promoted, a fifth more CPU per request (docs/performance.md). A slot
 * is emptied when its exchange settles; the array only grows to the most ever in flight.
 */
export class InFlight<T> {
  private readonly slots: Array<T | undefined> = [];
  private readonly free: number[] = [];
  size = 0;

  add(entry: T): number {
    const slot = this.free.pop() ?? this.slots.length;
    this.slots[slot] = entry;
    this.size++;
    return slot;
  }

  delete(entry: T, slot: number): void {
    if (slot < 0 || this.slots[slot] !== entry) return;
    this.slots[slot] = undefined;
    this.free.push(slot);
    this.size--;
  }

  /** The entries now (a copy: cancelling one removes it). */
  entries(): T[] {
    const out: T[] = [];
    for (const e of this.slots) if (e !== undefined) out.push(e);
    return out;
  }
}
