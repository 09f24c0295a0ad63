/** Where svc keeps its files: the credential store (config) and data (sandbox db, import journals). */
import { readFileSync } from 'node:fs';
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

/** The store's file in its folder. */
export function storeFile(dir: string): string {
  return join(dir, 'credentials.json');
}

/**
 * The default profile saved by `svc auth switch`, read without conf (which costs ~100 ms to load):
 * every run that names no profile asks for it. An absent, unreadable or malformed file gives
 * undefined here; the store itself reports a malformed file when a command opens it.
 */
export function readDefaultProfile(dir: string): string | undefined {
  try {
    const parsed = JSON.parse(readFileSync(storeFile(dir), 'utf8')) as { default_profile?: unknown };
    return typeof parsed.default_profile === 'string' && parsed.default_profile !== '' ? parsed.default_profile : undefined;
  } catch {
    return undefined;
  }
}
