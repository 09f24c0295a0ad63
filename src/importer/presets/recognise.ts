/**
 * Which preset a header is: each variant of each family (family.ts) whose distinguishing columns
 * are all in the header scores the number of them that are not names every export shares; the
 * family of the best score is the file's, its best variant the version. Two families at the best
 * score are a tie (the caller stops and names both); none, the columns are read by name.
 */

import { columnKey } from '../column-names.js';
import { InputError } from '../errors.js';
import type { MapFile, MappingSchema } from '../map-file.js';
import { GENERIC_COLUMNS, listFamilies, type PresetFamily, type PresetVariant } from './family.js';

export type Recognition =
  | { kind: 'one'; family: PresetFamily; variant: PresetVariant; score: number }
  | { kind: 'tie'; candidates: Array<{ family: PresetFamily; variant: PresetVariant }>; score: number }
  | { kind: 'none' };

/** A variant's score on a header (its distinguishing columns present), or -1 when one is missing. */
export function variantScore(names: ReadonlySet<string>, variant: PresetVariant): number {
  let score = 0;
  for (const c of variant.detect) {
    const key = columnKey(c);
    if (!names.has(key)) return -1;
    if (!GENERIC_COLUMNS.has(key)) score++;
  }
  return score;
}

/** The family's variant that fits the header best (the first listed of equals), if any fits. */
export function bestVariant(family: PresetFamily, header: readonly string[]): { variant: PresetVariant; score: number } | undefined {
  const names = new Set(header.map(columnKey));
  let best: { variant: PresetVariant; score: number } | undefined;
  for (const variant of family.variants) {
    const score = variantScore(names, variant);
    if (score > 0 && (!best || score > best.score)) best = { variant, score };
  }
  return best;
}

/** The preset family and variant a header identifies, a tie, or none. */
export function recognise(
  header: readonly string[],
  schema: MappingSchema,
  families: readonly PresetFamily[] = listFamilies(schema),
): Recognition {
  let best: Array<{ family: PresetFamily; variant: PresetVariant }> = [];
  let top = 0;
  for (const family of families) {
    const found = bestVariant(family, header);
    if (!found || found.score < top) continue;
    if (found.score > top) best = [];
    top = found.score;
    best.push({ family, variant: found.variant });
  }
  const [first] = best;
  if (!first) return { kind: 'none' };
  if (best.length > 1) return { kind: 'tie', candidates: best, score: top };
  return { kind: 'one', family: first.family, variant: first.variant, score: top };
}

/**
 * What the command line chose before the header is read: a preset family (`--preset NAME`), a
 * mapping file, recognition turned off (`--preset none`), or nothing (recognise from the header).
 */
export interface MappingChoice {
  family?: PresetFamily;
  mapFile?: MapFile;
  none: boolean;
}

/**
 * The mapping file that reads this header (`name`: the file, for the message): a named family's
 * best variant, the mapping file, or, without either, the preset the header is recognised as. Two
 * presets fitting equally stop here (exit 2) naming both.
 */
export function mappingForHeader(
  name: string,
  header: readonly string[],
  choice: MappingChoice,
  schema: MappingSchema,
  families?: readonly PresetFamily[],
): MapFile | undefined {
  if (choice.family) return familyMapping(choice.family, header);
  if (choice.mapFile || choice.none) return choice.mapFile;
  const found = recognise(header, schema, families);
  if (found.kind === 'one') return recognisedMapping(found.variant);
  if (found.kind === 'tie') {
    const names = found.candidates.map((c) => c.family.name);
    throw new InputError(
      `${name} has a header that fits ${names.length} presets equally: ${found.candidates.map((c) => `${c.family.name} (${c.variant.label})`).join(', ')}`,
      `name the one it is: ${names.map((n) => `--preset ${n}`).join(' or ')}; --preset none reads the columns by name`,
    );
  }
  return undefined;
}

/** The mapping a family gives a header: its best variant's, else the family's own keys. */
export function familyMapping(family: PresetFamily, header: readonly string[]): MapFile {
  return bestVariant(family, header)?.variant.mapFile ?? family.base;
}

/** The mapping file of a recognised variant, marked as recognised (a copy: the family's stays as it is). */
export function recognisedMapping(variant: PresetVariant): MapFile {
  return { ...variant.mapFile, recognised: true, origin: `${variant.mapFile.origin} (recognised from the header)` };
}

/**
 * `preset NAME (recognised from the header), variant V: LABEL`: how every output names the mapping
 * of a preset (the variant when the family has named ones).
 */
export function describePreset(mapFile: MapFile | undefined): string | undefined {
  if (!mapFile?.name || !mapFile.origin.startsWith('preset ')) return undefined;
  const v =
    mapFile.variant && !mapFile.variant.name.startsWith('default') ? `, variant ${mapFile.variant.name}: ${mapFile.variant.label}` : '';
  return `${mapFile.origin}${v}`;
}

/** The preset of a mapping as JSON outputs give it: `{ name, variant, label, recognised }`. */
export function presetJson(mapFile: MapFile | undefined): Record<string, unknown> | undefined {
  if (!mapFile?.name || !mapFile.origin.startsWith('preset ')) return undefined;
  return {
    name: mapFile.name,
    ...(mapFile.variant ? { variant: mapFile.variant.name, label: mapFile.variant.label } : {}),
    recognised: mapFile.recognised === true,
  };
}
