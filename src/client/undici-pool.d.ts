// undici's Pool class alone (lib/dispatcher/pool.js, CommonJS: module.exports = Pool). The
// package's index loads all of undici (fetch, WebSocket, caches, mocks, cookies …): about 0.2 s of
// CPU at every start of a command that talks to the service, of which the client needs only the
// Pool. undici has no "exports" map, so the file is reachable by its path (pinned in
// test/client/undici-pool.test.ts).
declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';

  const PoolClass: typeof Pool;
  export default PoolClass;
}
