/** Builds the API client for a run. Replaced by the client issue. */
import type { Context } from '../context.js';
import { NotImplementedError } from '../errors.js';
import type { ApiClient } from './types.js';

export async function createClientForContext(_ctx: Context): Promise<{ client: ApiClient; close: () => Promise<void> }> {
  throw new NotImplementedError('(API client)');
}
