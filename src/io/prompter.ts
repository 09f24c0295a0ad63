/**
 * Prompts with @inquirer/prompts, drawn on stderr so stdout stays clean data. Loaded only when a
 * command prompts. Callers check `canPrompt` first; these never run without a terminal.
 */
import { PromptCancelled } from '../errors.js';
import type { IOStreams } from './streams.js';

export interface Choice<T extends string> {
  name: string;
  value: T;
  description?: string;
  checked?: boolean;
}

export interface Prompter {
  input(opts: { message: string; default?: string; validate?: (v: string) => true | string }): Promise<string>;
  password(opts: { message: string; validate?: (v: string) => true | string }): Promise<string>;
  select<T extends string>(opts: { message: string; choices: Choice<T>[]; default?: T }): Promise<T>;
  checkbox<T extends string>(opts: { message: string; choices: Choice<T>[] }): Promise<T[]>;
  confirm(opts: { message: string; default?: boolean }): Promise<boolean>;
}

export async function createPrompter(io: IOStreams, signal?: AbortSignal): Promise<Prompter> {
  const inquirer = await import('@inquirer/prompts');
  const context = { input: io.stdin, output: io.stderr, signal, clearPromptOnDone: false };
  return {
    input: (o) => cancellable(inquirer.input({ message: o.message, default: o.default, validate: o.validate }, context)),
    password: (o) => cancellable(inquirer.password({ message: o.message, mask: '*', validate: o.validate }, context)),
    select: (o) => cancellable(inquirer.select({ message: o.message, choices: o.choices, default: o.default }, context)),
    checkbox: (o) => cancellable(inquirer.checkbox({ message: o.message, choices: o.choices }, context)),
    confirm: (o) => cancellable(inquirer.confirm({ message: o.message, default: o.default }, context)),
  };
}

/** Ctrl-C at a prompt (inquirer's ExitPromptError, or the abort signal) becomes PromptCancelled. */
async function cancellable<T>(answer: Promise<T>): Promise<T> {
  try {
    return await answer;
  } catch (err) {
    if (err instanceof Error && (err.name === 'ExitPromptError' || err.name === 'AbortPromptError')) throw new PromptCancelled();
    throw err;
  }
}
