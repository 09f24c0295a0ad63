/**
 * Which mapping a `contacts import` uses, as orders import chooses its own (orders/import-mapping.ts):
 * `--preset NAME` (a family, its variant picked from the header), `--map-file FILE`, `--preset none`
 * (columns by name), or, without either, the preset the header is recognised as
 * (src/importer/presets/recognise.ts). `--set email_consent=…|sms_consent=…` goes over a preset's
 * own `set` (Mailchimp's consent, taken from which of its files it is).
 */
import { consentWriteError } from '../../contract/contacts.js';
import { UsageError } from '../../errors.js';
import { CONTACT_MAPPING_SCHEMA, type ContactLayout } from '../../importer/contact-mapping.js';
import { loadMapFile, type MapFile, type ValueWords, valueKey } from '../../importer/map-file.js';
import { loadFamily, type PresetFamily } from '../../importer/presets/family.js';
import { type MappingChoice, mappingForHeader, presetJson } from '../../importer/presets/recognise.js';

export type ContactMappingChoice = MappingChoice;

/** `--preset NAME|none` or `--map-file FILE` (not both), before the header is read. */
export async function chooseContactMapping(
  opts: { preset?: string; mapFile?: string },
  signal?: AbortSignal,
): Promise<ContactMappingChoice> {
  if (opts.preset !== undefined && opts.mapFile !== undefined) throw new UsageError('give --preset or --map-file, not both');
  if (opts.preset?.trim().toLowerCase() === 'none') return { none: true };
  if (opts.preset !== undefined) return { family: loadFamily(opts.preset, CONTACT_MAPPING_SCHEMA), none: false };
  if (opts.mapFile !== undefined) return { mapFile: await loadMapFile(opts.mapFile, CONTACT_MAPPING_SCHEMA, signal), none: false };
  return { none: false };
}

/**
 * The mapping that reads this header: a named family's best variant, the mapping file, or the
 * preset the header is recognised as. Two presets fitting equally stop (exit 2) naming both.
 */
export function contactMappingForHeader(
  name: string,
  header: readonly string[],
  choice: ContactMappingChoice,
  families?: readonly PresetFamily[],
): MapFile | undefined {
  return mappingForHeader(name, header, choice, CONTACT_MAPPING_SCHEMA, families);
}

/** `--set email_consent=VALUE` / `sms_consent=VALUE` (repeatable): a writable consent every row gets. */
export function parseContactSets(values: readonly string[]): Map<string, string> {
  const settable = CONTACT_MAPPING_SCHEMA.settable;
  const out = new Map<string, string>();
  for (const v of values) {
    const eq = v.indexOf('=');
    const field = eq > 0 ? v.slice(0, eq).trim() : '';
    const value =
      eq > 0
        ? v
            .slice(eq + 1)
            .trim()
            .toLowerCase()
        : '';
    if (!field || !value)
      throw new UsageError(`--set must look like field=value, got ${JSON.stringify(v)}`, 'e.g. --set email_consent=unsubscribed');
    if (!(settable as readonly string[]).includes(field))
      throw new UsageError(`--set names a field it cannot give: ${JSON.stringify(field)}`, `fields it can give: ${settable.join(', ')}`);
    const why = consentWriteError(field as 'email_consent' | 'sms_consent', value);
    if (why) throw new UsageError(`--set ${field}: ${why}`);
    if (out.has(field)) throw new UsageError(`--set gives the field ${field} twice`);
    out.set(field, value);
  }
  return out;
}

/** The constants of a run: the mapping's `set` (a preset's consent), then `--set` over it. */
export function contactConstants(mapFile: MapFile | undefined, sets: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map(mapFile?.set ?? []);
  for (const [f, v] of sets) out.set(f, v);
  return out;
}

/**
 * `mapping (preset mailchimp (recognised from the header)):`, the variant, then `  email ← Email
 * Address` lines; a constant says where it comes from (the preset, overridable, or --set).
 */
export function describeContactMapping(layout: ContactLayout, mapFile: MapFile | undefined, sets: ReadonlyMap<string, string>): string {
  const lines = [`mapping${mapFile ? ` (${mapFile.origin})` : ''}:`];
  if (mapFile?.variant && !mapFile.variant.name.startsWith('default'))
    lines.push(`  variant ${mapFile.variant.name}: ${mapFile.variant.label}`);
  for (const s of layout.sources) {
    if (s.value === undefined) {
      lines.push(`  ${s.field} ← ${s.columns.join(', else ')}${translated(mapFile?.values.get(s.field))}`);
      continue;
    }
    const from = sets.has(s.field) ? '--set' : `the preset; --set ${s.field}=… overrides`;
    lines.push(`  ${s.field} = ${s.value} (${from})`);
  }
  if (layout.ignored.length > 0) lines.push(`  ${layout.ignored.length} column(s) ignored`);
  return lines.join('\n');
}

/** ` (Non-subscribed = never_subscribed)`: the export's words that are not the service's values in another case. */
function translated(words: ValueWords | undefined): string {
  const differing = [...(words?.values() ?? [])].filter((w) => valueKey(w.word) !== valueKey(w.value));
  return differing.length === 0 ? '' : ` (${differing.map((w) => `${w.word} = ${w.value}`).join(', ')})`;
}

/** The mapping as JSON outputs give it: from, preset, field → columns or value, ignored columns. */
export function contactMappingJson(layout: ContactLayout, mapFile: MapFile | undefined): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const s of layout.sources) {
    const words = mapFile?.values.get(s.field);
    const values = words && Object.fromEntries([...words.values()].map((w) => [w.word, w.value]));
    fields[s.field] = s.value !== undefined ? { value: s.value } : { columns: s.columns, ...(values ? { values } : {}) };
  }
  const preset = presetJson(mapFile);
  return { ...(mapFile ? { from: mapFile.origin } : {}), ...(preset ? { preset } : {}), fields, ignored: layout.ignored };
}
