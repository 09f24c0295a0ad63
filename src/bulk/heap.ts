/**
 * Young-generation sizing for the bulk commands (orders import, events send --file).
 *
 * A bulk run allocates fast (some 17 KB per request, nearly all of it garbage within
 * milliseconds). With V8's initial 1 MiB semi-space it scavenges every few milliseconds, and a
 * scavenge has a fixed cost (roots, the old-to-new remembered set) of about a millisecond: 8–10%
 * of the CPU of an import. Left to itself V8 may grow the semi-space to 16 MiB, which would put a
 * long import's peak RSS over 150 MB; and with little surviving each scavenge it often does not
 * grow it at all. So the bulk commands set it to a middle size, once, at their start:
 * --max-semi-space-size is read only at start-up, but --semi-space-growth-factor is read at every
 * growth decision. With the factor at 2, a short burst of objects kept alive across scavenges
 * makes V8 double the semi-space (1 → 2 → 4 MiB, about 10 ms); then the factor goes to 1, so it
 * stays there. docs/performance.md has the figures.
 */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

const MIB = 1024 * 1024;

/** The new space's capacity in bytes (both semi-spaces). */
export function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * Grows the new space to `mib` MiB (both semi-spaces together, as V8's heap statistics count it:
 * 8 MiB = two 4 MiB semi-spaces) when it is smaller, and keeps it at that size from then on.
 * Returns the new space's capacity reached, in bytes.
 */
export function sizeYoungGeneration(mib = 8): number {
  const target = mib * MIB;
  try {
    if (youngGenerationBytes() < target) {
      setFlagsFromString('--semi-space-growth-factor=2');
      // Objects that survive the scavenges they cause: what V8 reads as "the young generation
      // is too small". A bounded burst (at most ~13 MB). Arrays of 128 small integers (1 KiB
      // each, 32 a round) rather than small objects: the same bytes surviving in 32 × fewer
      // objects, which a scavenge copies for less: 14–17 ms of CPU at the start of every bulk
      // command instead of 34–39 (measured when it was written; history in git: git log -S "Round 5: contacts and presets" -- docs/performance.md).
      // The array goes out of scope on return and is collected with the rest.
      const keep: number[][] = [];
      for (let round = 0; round < 400 && youngGenerationBytes() < target; round++) {
        for (let i = 0; i < 32; i++) keep.push(new Array<number>(128).fill(i));
      }
    }
  } finally {
    setFlagsFromString('--semi-space-growth-factor=1');
  }
  return youngGenerationBytes();
}
