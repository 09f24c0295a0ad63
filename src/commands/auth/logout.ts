import { NotImplementedError } from '../../errors.js';

/** Lands with its issue; until then the command says so and exits 1. */
export async function run(): Promise<number> {
  throw new NotImplementedError('auth logout');
}
