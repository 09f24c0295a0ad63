/** The CSV reader's hand-over between the parser (the input side) and the rows' consumer. */
import type { ParsedItem } from './csv-reader.js';

/** Parsed records held ahead of the consumer before the input waits. */
const AHEAD_RECORDS = 256;

/**
 * The parser's records on one side, the consumer on the other: the input is read only while
 * fewer than AHEAD_RECORDS records wait, so a file is never loaded whole.
 */
export class RecordQueue {
  private readonly held: ParsedItem[] = [];
  private wakeReader: (() => void) | undefined;
  private wakeFeeder: (() => void) | undefined;
  ended = false;
  failure: { error: unknown } | undefined;

  push(items: ParsedItem[]): void {
    for (const item of items) this.held.push(item);
    if (items.length > 0) this.poke();
  }
  end(failure?: unknown): void {
    if (failure !== undefined) this.failure ??= { error: failure };
    this.ended = true;
    this.poke();
  }
  /** Up to `max` items; waits only when none is held and the input goes on. */
  async take(max: number): Promise<ParsedItem[] | null> {
    for (;;) {
      if (this.held.length > 0) {
        const out = this.held.splice(0, max);
        const feeder = this.wakeFeeder;
        this.wakeFeeder = undefined;
        feeder?.();
        return out;
      }
      if (this.failure) throw this.failure.error;
      if (this.ended) return null;
      await new Promise<void>((resolve) => {
        this.wakeReader = resolve;
      });
    }
  }
  /** Resolves when the consumer has room again. */
  async room(): Promise<void> {
    while (this.held.length >= AHEAD_RECORDS && !this.ended) {
      await new Promise<void>((resolve) => {
        this.wakeFeeder = resolve;
      });
    }
  }
  stop(): void {
    this.ended = true;
    const feeder = this.wakeFeeder;
    this.wakeFeeder = undefined;
    feeder?.();
  }
  private poke(): void {
    const w = this.wakeReader;
    this.wakeReader = undefined;
    w?.();
  }
}
