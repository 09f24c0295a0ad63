/**
 * svc orders presets [show NAME]: the mappings shipped for shop exports (`--preset NAME`), listed,
 * or one printed as the mapping file it is, to copy and adapt for `--map-file`.
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { MapFile } from '../../importer/map-file.js';
import { ORDER_MAPPING_SCHEMA } from '../../importer/mapping.js';
import { listPresets, presetText } from '../../importer/presets/family.js';
import type { Column } from '../../io/output.js';

type PresetRow = { name: string; description: string };
const COLUMNS: Column<PresetRow>[] = [
  { header: 'name', get: (p) => p.name, noTruncate: true },
  { header: 'description', get: (p) => p.description },
];

export async function run(args: [action: string | undefined, name: string | undefined], _opts: unknown, ctx: Context): Promise<number> {
  const [verb, name] = args;
  if (verb === undefined) {
    const presets = listPresets(ORDER_MAPPING_SCHEMA);
    const writer = await ctx.out.list(ctx.out.defaultFormat(ctx.settings.json), COLUMNS);
    writer.writePage(presets.map((p: MapFile) => ({ name: p.name ?? '', description: p.description ?? '' })));
    writer.end();
    if (!ctx.settings.json && ctx.policy.humanStdout)
      ctx.out.info('import with: svc orders import FILE --preset NAME; print one to adapt: svc orders presets show NAME');
    return 0;
  }
  if (verb !== 'show')
    throw new UsageError(`unknown action ${JSON.stringify(verb)}`, 'svc orders presets, or svc orders presets show NAME');
  if (name === undefined) throw new UsageError('give the preset to show', 'svc orders presets show shopify');
  const text = presetText(name, ORDER_MAPPING_SCHEMA);
  ctx.out.stdout(text.endsWith('\n') ? text : `${text}\n`);
  return 0;
}
