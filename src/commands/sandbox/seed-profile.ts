/**
 * Which profile `svc sandbox start --seed` (and `reset --seed`) saves the seeded credentials in,
 * so that no profile is replaced silently (a deviation from cli.md's "saves a `sandbox` profile",
 * listed in docs/cli-extensions.md): `--profile NAME` when given; else `sandbox` when it is absent
 * or still points at a sandbox that is gone; else the first of `sandbox-2`, `sandbox-3`, … that is.
 */
import type { Context } from '../../context.js';
import { isLoopbackHost } from '../../store/settings.js';
import type { CredentialStore, Profile } from '../../store/store.js';
import { hostPort, probeListening } from '../../util/tcp-probe.js';
import { SANDBOX_PROFILE } from './admin-client.js';

export interface SeedProfileChoice {
  name: string;
  /** Why an existing profile was replaced (its sandbox is gone, or --profile named it), if one was. */
  replaced?: string;
  /** The profiles passed over because they still serve something, for the message. */
  kept: string[];
}

/**
 * True when nothing listens at the profile's address: the sandbox it was made for has stopped.
 * Only a refused connection counts: a sandbox slow to answer on a busy machine (four seeds
 * starting at once) is alive, and its profile is kept.
 */
export async function sandboxIsGone(baseUrl: string): Promise<boolean> {
  const { host, port } = hostPort(baseUrl);
  return (await probeListening(host, port)) === 'refused';
}

/** A profile made by a seed (marked, or the `sandbox` profile of older versions) on this machine. */
function isSeededSandbox(name: string, profile: Profile): boolean {
  if (!profile.base_url) return false;
  let host: string;
  try {
    host = new URL(profile.base_url).hostname;
  } catch {
    return false;
  }
  return isLoopbackHost(host) && (profile.seeded_sandbox === true || name === SANDBOX_PROFILE);
}

/** Picks the profile for the credentials seeded into the sandbox at `baseUrl` (see the module comment). */
export async function chooseSeedProfile(ctx: Context, store: CredentialStore, baseUrl: string): Promise<SeedProfileChoice> {
  if (ctx.settings.profileSource === 'flag') {
    const name = ctx.settings.profile;
    const existing = store.getProfile(name);
    return {
      name,
      kept: [],
      replaced: existing?.base_url && existing.base_url !== baseUrl ? `--profile ${name} (was ${existing.base_url})` : undefined,
    };
  }
  const kept: string[] = [];
  for (let n = 1; ; n++) {
    const name = n === 1 ? SANDBOX_PROFILE : `${SANDBOX_PROFILE}-${n}`;
    const existing = store.getProfile(name);
    if (!existing) return { name, kept };
    if (await isFreeToReplace(name, existing, baseUrl)) {
      return { name, kept, replaced: `its sandbox at ${existing.base_url} is gone` };
    }
    kept.push(name);
  }
}

/** A seeded profile whose sandbox has stopped: at the new sandbox's address, or no longer answering. */
async function isFreeToReplace(name: string, existing: Profile, baseUrl: string): Promise<boolean> {
  if (!isSeededSandbox(name, existing)) return false;
  // The same address as the new sandbox: the one it was made for has stopped and freed it.
  if (existing.base_url === baseUrl) return true;
  return sandboxIsGone(existing.base_url as string);
}

/** The profile `reset --seed` saves in: --profile, else a seeded profile already pointing at this sandbox, else as for start. */
export async function chooseResetSeedProfile(ctx: Context, store: CredentialStore, baseUrl: string): Promise<SeedProfileChoice> {
  if (ctx.settings.profileSource === 'flag' || ctx.settings.profileSource === 'env') {
    return { name: ctx.settings.profile, kept: [] };
  }
  const same = store.listProfiles().filter((n) => {
    const p = store.getProfile(n);
    return p !== undefined && p.base_url === baseUrl && isSeededSandbox(n, p);
  });
  const name = same.includes(SANDBOX_PROFILE) ? SANDBOX_PROFILE : same[0];
  if (name !== undefined) return { name, kept: [] };
  return chooseSeedProfile(ctx, store, baseUrl);
}

/** The line saying where the credentials were saved, and why not in `sandbox` when they were not. */
export function savedProfileMessage(choice: SeedProfileChoice): string {
  const why =
    choice.kept.length > 0
      ? ` (${choice.kept.map((k) => `\`${k}\``).join(', ')} still point${choice.kept.length > 1 ? '' : 's'} at ${choice.kept.length > 1 ? 'running sandboxes or other services' : 'a running sandbox or another service'}: kept)`
      : choice.replaced
        ? ` (replaced: ${choice.replaced})`
        : '';
  return `saved profile \`${choice.name}\`${why}: use --profile ${choice.name}`;
}
