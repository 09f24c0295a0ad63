/** Where svc keeps its files: the credential store (config) and data (sandbox db, import journals). */
import { join } from 'node:path';
import envPaths from 'env-paths';

type Env = Record<string, string | undefined>;

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

/** The credential store's folder: SVC_CONFIG_DIR, else the platform's config folder for svc. */
export function configDir(env: Env): string {
  return nonEmpty(env.SVC_CONFIG_DIR) ?? envPaths('svc', { suffix: '' }).config;
}

/**
 * The data folder (embedded sandbox database, import journals): SVC_DATA_DIR; else `data/` inside
 * SVC_CONFIG_DIR when that is set (so a test's temporary config keeps its data apart too); else
 * the platform's data folder for svc.
 */
export function dataDir(env: Env): string {
  const explicit = nonEmpty(env.SVC_DATA_DIR);
  if (explicit) return explicit;
  const config = nonEmpty(env.SVC_CONFIG_DIR);
  if (config) return join(config, 'data');
  return envPaths('svc', { suffix: '' }).data;
}
