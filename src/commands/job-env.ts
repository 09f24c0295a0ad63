/** The bulk job's view of a run (bulk/job.ts JobEnv), built from the command's Context. */
import type { JobEnv } from '../bulk/index.js';
import type { Context } from '../context.js';

export function jobEnv(ctx: Context): JobEnv {
  return {
    signal: ctx.signal,
    dataDir: ctx.dataDir,
    stdin: ctx.io.stdin,
    standardFiles: ctx.io.standardFiles,
    maxOutageMs: ctx.settings.maxOutageMs,
    serviceUrl: async () => (await ctx.client()).baseUrl,
    warn: (text) => ctx.log.warn(text),
    redact: (text) => ctx.redactor.redact(text),
  };
}
