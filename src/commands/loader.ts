/** How commands are wired: each verb module exports `run`, loaded lazily by its action. */
import { type Command, InvalidArgumentError } from 'commander';
import type { Context } from '../context.js';

export interface CommandModule {
  /** Runs the verb; returns the exit code (or nothing for 0). Throws typed errors for failures. */
  // biome-ignore lint/suspicious/noExplicitAny: each verb declares its own options type
  run(args: string[], opts: any, ctx: Context): Promise<number | undefined>;
}

export type ActionFactory = (load: () => Promise<CommandModule>) => (this: Command, ...args: unknown[]) => Promise<void>;

/** Collects a repeatable option (`--map a=b --map c=d`) into an array. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Parses a positive integer option; a bad value is a usage error (exit 2). */
export function positiveInt(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
    return n;
  };
}
