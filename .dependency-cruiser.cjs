// The layout of ../shared/DESIGN.md as rules: which rooms of src/ may not call which.
// Run with `npm run lint:layout`. Type-only imports count (tsPreCompilationDeps), and so do
// dynamic imports: `await import('../sandbox/index.js')` is an arrow like any other.
// `process.exit` outside main.ts is a call, not an import: test/unit/layout.test.ts checks it.

/** Rooms below the entry: they throw their own typed errors and print nothing. */
const LOWER_ROOMS = '^src/(importer|bulk|store|client|contract)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No circle between files: each room calls only the rooms below it.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'client-not-to-cli',
      severity: 'error',
      comment: 'client/ knows nothing of terminals, commands, the run wiring, the Context or the sandbox.',
      from: { path: '^src/client/' },
      to: { path: ['^src/(io|commands|wiring|sandbox)/', '^src/context\\.ts$'] },
    },
    {
      name: 'sandbox-not-to-cli',
      severity: 'error',
      comment: 'sandbox/ is the emulated service: it knows nothing of the client, the commands, the wiring, io/ or the entry.',
      from: { path: '^src/sandbox/' },
      to: { path: ['^src/(client|commands|wiring|io)/', '^src/(main|program|context|errors)\\.ts$'] },
    },
    {
      name: 'lower-rooms-not-to-io-or-cli-errors',
      severity: 'error',
      comment:
        'importer/, bulk/, store/, client/ and contract/ print nothing and throw their own errors; ' +
        'only the entry maps errors to exit codes and messages (src/errors.ts).',
      from: { path: LOWER_ROOMS },
      to: { path: ['^src/io/', '^src/errors\\.ts$'] },
    },
    {
      name: 'lower-rooms-not-up',
      severity: 'error',
      comment:
        'Data flows one way: contract/ calls no other room; client/, store/ call only contract/; ' +
        'bulk/ and importer/ call contract/, client/ (types and errors) and each other, never commands/, wiring/ or the entry.',
      from: { path: LOWER_ROOMS },
      to: { path: ['^src/(commands|wiring|sandbox|dashboard)/', '^src/(main|program|context)\\.ts$'] },
    },
    {
      name: 'only-bulk-entry',
      severity: 'error',
      comment:
        'bulk/ is entered through its one door, bulk/index.ts (the job, the adapters, the plan helpers, the types): ' +
        'nothing outside bulk/ imports another of its files.',
      from: { path: '^src/', pathNot: '^src/bulk/' },
      to: { path: '^src/bulk/', pathNot: '^src/bulk/index\\.ts$' },
    },
    {
      name: 'importer-not-to-bulk',
      severity: 'error',
      comment:
        'importer/ holds mapping, presets and value formats: the bulk job uses them, never the reverse ' +
        '(the errors both throw live in importer/errors.ts).',
      from: { path: '^src/importer/' },
      to: { path: '^src/bulk/' },
    },
    {
      name: 'sources-not-to-adapters-or-job',
      severity: 'error',
      comment: 'bulk/sources/ read inputs into rows: they know no verb (adapters/), no plan and not the job.',
      from: { path: '^src/bulk/sources/' },
      to: { path: ['^src/bulk/(adapters|plan)/', '^src/bulk/(job[^/]*|index)\\.ts$'] },
    },
    {
      name: 'adapters-not-to-job',
      severity: 'error',
      comment:
        'An adapter says how a row becomes a request and an answer an outcome: it runs on the engine ' +
        '(run.ts), and the job starts it; it does not start jobs, nor use another verb.',
      from: { path: '^src/bulk/adapters/([^/]+)\\.ts$' },
      to: { path: ['^src/bulk/(job[^/]*|index)\\.ts$', '^src/bulk/plan/'] },
    },
    {
      name: 'bulk-entry-only-for-commands',
      severity: 'error',
      comment: 'The bulk job is a command\'s to start: only commands/ (and the entry, for its errors) reach bulk/.',
      from: { path: '^src/', pathNot: ['^src/(bulk|commands)/', '^src/(main|program)\\.ts$'] },
      to: { path: '^src/bulk/' },
    },
    {
      name: 'contract-calls-no-room',
      severity: 'error',
      comment: 'contract/ is the vocabulary both sides share: it imports only itself (and libraries).',
      from: { path: '^src/contract/' },
      to: { path: '^src/', pathNot: '^src/contract/' },
    },
    {
      name: 'sandbox-checks-phones-without-libphonenumber',
      severity: 'error',
      comment:
        'Phone normalisation (contract/phone.ts, libphonenumber) is for the CLI and the importer; the ' +
        'sandbox only checks the E.164 format (contract/formats.ts) and its bundle stays small.',
      from: { path: '^src/sandbox/' },
      to: { path: ['^src/contract/phone\\.ts$', '(^|/)node_modules/libphonenumber-js/'] },
    },
    {
      name: 'heap-tuning-only-from-bulk-commands',
      severity: 'error',
      comment: 'bulk/heap.ts sets V8 flags for a bulk run: only the engine calls it (the commands through bulk/index.ts).',
      from: { path: '^src/', pathNot: ['^src/bulk/'] },
      to: { path: '^src/bulk/heap\\.ts$' },
    },
    {
      name: 'commands-not-to-transport-store-or-server',
      severity: 'error',
      comment: 'A command is thin: HTTP (undici), the credential file (conf) and the server (fastify) live in lower rooms.',
      from: { path: '^src/commands/' },
      to: { path: '(^|/)node_modules/(undici|conf|fastify|@fastify/[^/]+)/' },
    },
    {
      name: 'commands-not-to-process',
      severity: 'error',
      comment: 'A command reads its streams, environment and signal from the Context, never from process.',
      from: { path: '^src/commands/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?process$' },
    },
    {
      name: 'wiring-only-from-entry',
      severity: 'error',
      comment: 'The run wiring is imported only by the entry rooms: main.ts, program.ts, context.ts and commands/.',
      from: { path: '^src/', pathNot: ['^src/(main|program|context)\\.ts$', '^src/(commands|wiring)/'] },
      to: { path: '^src/wiring/' },
    },
    {
      name: 'sandbox-only-from-sandbox-commands-and-wiring',
      severity: 'error',
      comment: 'Only the sandbox commands and wiring/ (by typed dynamic import) load the sandbox (and tests, not checked here).',
      from: { path: '^src/', pathNot: ['^src/sandbox/', '^src/commands/sandbox/', '^src/wiring/'] },
      to: { path: '^src/sandbox/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    // Report problems, not the modules that nobody imports (bin/ and the tests are not cruised).
    reporterOptions: { text: { highlightFocused: true } },
  },
};
