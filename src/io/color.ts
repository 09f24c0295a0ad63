/** Colour helpers that are no-ops when colour is off (NO_COLOR, --no-color, not a TTY). */
import picocolors from 'picocolors';

export type Colors = ReturnType<typeof picocolors.createColors>;

export function makeColors(enabled: boolean): Colors {
  return picocolors.createColors(enabled);
}
