/** What the sandbox's plugins and route modules are built from. */
import type { Domain } from './domain/context.js';
import type { Faults } from './faults.js';

export interface ServerDeps {
  domain: Domain;
  faults: Faults;
  /** The base URL clients use (known once listening), for Link headers. */
  baseUrl: () => string;
  /** Empties every table but biz_default, for POST /_sandbox/reset. */
  reset: () => void;
}

/** The options every route plugin is registered with. */
export interface RouteOptions {
  deps: ServerDeps;
}
