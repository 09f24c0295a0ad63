/**
 * The "cannot" of an orders file: the service ties each order to a contact by e-mail or phone, so a
 * file with neither column cannot be imported. Said in one sentence, before anything is sent,
 * with the export or setting that gives one when the exporter has one (a preset's `"cannot"`).
 */
import { InputError } from '../errors.js';
import type { MapFile } from '../map-file.js';
import { describePreset } from './recognise.js';

/** Thrown by the column resolver when no column can be e-mail and none phone (mapping.ts). */
export class NoContactColumnsError extends InputError {
  constructor() {
    super('the file has no e-mail and no phone column');
    this.name = 'NoContactColumnsError';
  }
}

/** Words of a column name that may hold an e-mail address or a phone number, in the languages of the presets. */
const CONTACT_WORDS = /(e-?mail|mail|phone|tel|telephone|telefon|mobile|mobil|cell|sms|handy|courriel|portable)/;

/** Whether a column's name could be an e-mail or a phone column (then a missing one is a mapping to give, not a "cannot"). */
export function mayHoldContact(column: string): boolean {
  return column
    .toLowerCase()
    .split(/[^a-z0-9-]+/)
    .some((w) => CONTACT_WORDS.test(w) && (w.length <= 9 || w.includes('mail') || w.includes('phone')));
}

/** The sentence for `file`: why nothing can be imported, and, for a known export, what gives a column. */
export function noContactColumns(file: string, mapFile: MapFile | undefined, mayMap = true): InputError {
  const preset = describePreset(mapFile);
  const message = `${file} has no e-mail and no phone column, and the service ties each order to a contact by e-mail or phone, so none of its orders can be imported; nothing was sent`;
  if (preset) {
    const remedy = mapFile?.cannot?.remedy;
    return new InputError(message, `${preset}: ${remedy ?? "this export never holds the buyer's e-mail or phone"}`);
  }
  return new InputError(
    message,
    mayMap ? 'a column holding e-mail addresses or phone numbers under another name can be named: --map email=COLUMN' : undefined,
  );
}
