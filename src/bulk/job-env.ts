import type { Readable } from 'node:stream';
import type { StandardFile } from './paths.js';

/** What a job needs from the run around it (the command builds it from its Context): no terminal. */
export interface JobEnv {
  signal: AbortSignal;
  /** Where default journals go. */
  dataDir: string;
  stdin: Readable;
  /** svc's own stdout and stderr, when they are files: no output may be one of them. */
  standardFiles?: () => StandardFile[];
  maxOutageMs: number;
  /** The service's address, recorded in the journal (asks for the client). */
  serviceUrl(): Promise<string>;
  /** A warning for the person running it (the command decides where it goes). */
  warn(text: string): void;
  /** The run's redactor: what a row's answer said is masked before any output holds it. */
  redact(text: string): string;
}
