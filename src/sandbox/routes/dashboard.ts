/**
 * The dashboard: a small static page at / (built by build.mjs into dist/dashboard/) that reads
 * and writes through the admin API and holds no state of its own. Guarded as the admin API is
 * (plugins/admin-guard.ts). The files are read once, from the package's dist/dashboard/, found from this module
 * whether it runs from src/ (tests) or from dist/ (the built CLI).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync } from 'fastify';
import type { RouteOptions } from '../deps.js';
import { adminGuard } from '../plugins/admin-guard.js';

const ASSETS: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};

function dashboardDir(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist', 'dashboard');
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

let cache: Map<string, Buffer> | undefined;

function asset(name: string): Buffer | undefined {
  if (!cache) {
    cache = new Map();
    const dir = dashboardDir();
    for (const file of Object.keys(ASSETS)) {
      const path = dir && join(dir, file);
      if (path && existsSync(path)) cache.set(file, readFileSync(path));
    }
  }
  return cache.get(name);
}

/**
 * Everything the page loads comes from here and it talks only to its own origin: no inline
 * script or style, no framing (clickjacking of Reset or Reveal).
 */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const dashboardRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  app.addHook('onRequest', adminGuard(deps.security, 'dashboard'));
  const serve = (url: string, file: string) =>
    app.get(url, (_req, reply) => {
      const body = asset(file);
      if (!body) return reply.code(404).type('text/plain; charset=utf-8').send('the dashboard is not built (npm run build)\n');
      return reply
        .code(200)
        .header('content-type', ASSETS[file] as string)
        .header('cache-control', 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', DASHBOARD_CSP)
        .header('referrer-policy', 'no-referrer')
        .send(body);
    });
  serve('/', 'index.html');
  serve('/favicon.ico', 'favicon.svg');
  for (const file of ['app.js', 'app.css', 'favicon.svg']) serve(`/dashboard/${file}`, file);
};
