/**
 * The sandbox's storage: one better-sqlite3 database (WAL, synchronous=NORMAL) and a cache of
 * prepared statements, so that no request compiles SQL twice.
 */
import { rmSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS businesses (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, available_scopes TEXT NOT NULL, created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS apps (
  client_id TEXT PRIMARY KEY, business_id TEXT NOT NULL, name TEXT NOT NULL, scopes TEXT NOT NULL,
  secret_hash TEXT NOT NULL, created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS access_tokens (
  hash TEXT PRIMARY KEY, client_id TEXT NOT NULL, business_id TEXT NOT NULL, scopes TEXT NOT NULL,
  created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS access_tokens_client ON access_tokens (client_id);
CREATE TABLE IF NOT EXISTS api_tokens (
  id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, business_id TEXT NOT NULL, name TEXT NOT NULL,
  scopes TEXT NOT NULL, created_at INTEGER NOT NULL, revoked_at INTEGER
);
CREATE TABLE IF NOT EXISTS integrations (
  id TEXT PRIMARY KEY, business_id TEXT NOT NULL, name TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE,
  token_sealed TEXT NOT NULL, active INTEGER NOT NULL, created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS integrations_business ON integrations (business_id);
CREATE TABLE IF NOT EXISTS contacts (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, business_id TEXT NOT NULL,
  email TEXT, phone TEXT, first_name TEXT, last_name TEXT,
  email_consent TEXT NOT NULL, sms_consent TEXT NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  orders_count INTEGER NOT NULL DEFAULT 0, total_spent TEXT NOT NULL DEFAULT '{}', last_order_at INTEGER
);
CREATE UNIQUE INDEX IF NOT EXISTS contacts_email ON contacts (business_id, email) WHERE email IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS contacts_phone ON contacts (business_id, phone) WHERE phone IS NOT NULL;
CREATE INDEX IF NOT EXISTS contacts_business ON contacts (business_id, seq);
CREATE TABLE IF NOT EXISTS orders (
  seq INTEGER PRIMARY KEY, business_id TEXT NOT NULL, order_id TEXT NOT NULL,
  total TEXT NOT NULL, currency TEXT NOT NULL, order_date TEXT NOT NULL, order_ts INTEGER NOT NULL,
  email TEXT, phone TEXT, accepts_email_marketing INTEGER, accepts_sms_marketing INTEGER, initial_sync INTEGER,
  line_items TEXT, contact_id TEXT, integration_id TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  UNIQUE (business_id, order_id)
);
-- No index by contact from the start: it costs a random index page per order write (about a
-- fifth of an upsert). The only query by contact (a contact's newest order date, needed when its
-- newest order moves back in time or to another contact) creates it on first use
-- (SandboxDb.ensureOrdersByContact); from then on it is kept. See docs/performance.md. Files of
-- earlier versions had an index on contact_id alone, created up front: it goes.
DROP INDEX IF EXISTS orders_contact;
CREATE TABLE IF NOT EXISTS events (
  id TEXT PRIMARY KEY, business_id TEXT NOT NULL, event_type TEXT NOT NULL, contact_id TEXT NOT NULL,
  properties TEXT, occurred_at TEXT NOT NULL, client_event_id TEXT, received_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS events_dedupe ON events (business_id, client_event_id) WHERE client_event_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS flows (
  id TEXT PRIMARY KEY, business_id TEXT NOT NULL, event_type TEXT NOT NULL, name TEXT NOT NULL, created_at INTEGER NOT NULL,
  trigger_type TEXT NOT NULL DEFAULT 'event', enabled INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS flows_type ON flows (business_id, event_type);
CREATE TABLE IF NOT EXISTS outbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, business_id TEXT NOT NULL,
  contact_id TEXT, order_id TEXT, event_id TEXT, trigger TEXT, created_at INTEGER NOT NULL, flow_id TEXT
);
`;

export const DEFAULT_BUSINESS_ID = 'biz_default';

interface Batch {
  promise: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/**
 * Every better-sqlite3 object of the process stays reachable until the process ends. Built
 * against the headers of Node 24.19 or later, better-sqlite3 12 aborts the whole process
 * ("Assertion failed: (env) != nullptr" in RemoveEnvironmentCleanupHook) when the garbage
 * collector frees one of its databases or statements (nodejs/node#65446); those still alive at
 * exit are freed safely. A closed database and its statements weigh a few hundred bytes; a
 * sandbox prepares each statement once (the cache below) and runs its pragmas without creating
 * statement objects (exec).
 */
const keepAlive: object[] = [];

export class SandboxDb {
  /** Read its state only: a statement prepared on it directly would escape keepAlive. */
  get sql(): Database.Database {
    return this.connection;
  }
  private connection: Database.Database;
  private readonly cache = new Map<string, Database.Statement>();

  constructor(readonly file: string) {
    this.connection = this.open(file);
  }

  private open(source: string | Buffer): Database.Database {
    const sql = new Database(source);
    keepAlive.push(sql);
    if (typeof source === 'string') {
      sql.exec('PRAGMA journal_mode = WAL');
      sql.exec('PRAGMA synchronous = NORMAL');
    }
    sql.exec('PRAGMA busy_timeout = 5000');
    // A larger page cache and memory-mapped reads keep the hot path free of read() system calls.
    sql.exec('PRAGMA cache_size = -65536');
    sql.exec('PRAGMA mmap_size = 268435456');
    sql.exec('PRAGMA temp_store = MEMORY');
    // Checkpoint every ~40 MB of WAL instead of 4 MB: hot pages rewritten by many commits are
    // copied back once, and the checkpoint's fsyncs are rarer. close() checkpoints fully.
    sql.exec('PRAGMA wal_autocheckpoint = 10000');
    sql.exec(SCHEMA);
    this.addMissingColumns(sql);
    return sql;
  }

  /** Whether a group-commit batch is open (its writes not yet committed). */
  get batching(): boolean {
    return this.batch !== undefined;
  }

  /** The whole database as one image (SQLite's serialization): a consistent copy, taken between batches. */
  image(): Buffer {
    if (this.batch || this.connection.inTransaction) throw new Error('image() inside a batch: wait for flushed() first');
    const image = this.connection.serialize();
    // A WAL database's header says so (bytes 18-19 = 2), and SQLite cannot open such an image in
    // memory; the image holds every committed page (the WAL's too), so it is marked as a rollback-
    // journal database (1), which opens anywhere. A file restored from it is set to WAL on open.
    if (image[18] === 2 && image[19] === 2) {
      image[18] = 1;
      image[19] = 1;
    }
    return image;
  }

  /**
   * Replaces the whole content with an image from image(), in one step: an in-memory database is
   * opened from it; a file is closed, overwritten and opened again. Between batches only.
   */
  replaceWith(image: Buffer): void {
    if (this.batch || this.connection.inTransaction) throw new Error('replaceWith() inside a batch: wait for flushed() first');
    const inMemory = this.file === ':memory:' || this.file.startsWith('file:');
    // Check the image before the live database is touched: a bad one fails here, the data intact.
    const pageSize = image.length >= 100 ? image.readUInt16BE(16) : 0;
    const size = pageSize === 1 ? 65536 : pageSize;
    if (image.subarray(0, 16).toString('latin1') !== 'SQLite format 3\u0000' || size < 512 || image.length % size !== 0)
      throw new Error('not an SQLite database image');
    this.connection.close();
    this.cache.clear();
    this.rowCache.clear();
    if (inMemory) {
      this.connection = this.open(image);
      return;
    }
    for (const suffix of ['-wal', '-shm']) rmSync(`${this.file}${suffix}`, { force: true });
    writeFileSync(this.file, image);
    this.connection = this.open(this.file);
  }

  /** Columns added after a table was first created: files of earlier versions get them on open. */
  private addMissingColumns(sql: Database.Database): void {
    const added: [string, string, string][] = [
      ['flows', 'trigger_type', "TEXT NOT NULL DEFAULT 'event'"],
      ['flows', 'enabled', 'INTEGER NOT NULL DEFAULT 1'],
      ['outbox', 'flow_id', 'TEXT'],
      // The request that made a row, and the last one that changed it (request log links).
      ['contacts', 'request_id', 'TEXT'],
      ['contacts', 'last_request_id', 'TEXT'],
      ['orders', 'request_id', 'TEXT'],
      ['orders', 'last_request_id', 'TEXT'],
      ['events', 'request_id', 'TEXT'],
      ['outbox', 'request_id', 'TEXT'],
    ];
    // Through a statement kept alive (keepAlive): the pragma method would leave one to the collector.
    const columnsOf = sql.prepare('SELECT name FROM pragma_table_info(?)').pluck();
    keepAlive.push(columnsOf);
    for (const [table, column, type] of added) {
      const columns = columnsOf.all(table) as string[];
      if (!columns.includes(column)) sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
    }
  }

  /** A prepared statement, compiled on first use and reused afterwards. */
  stmt(source: string): Database.Statement {
    let s = this.cache.get(source);
    if (!s) {
      s = this.sql.prepare(source);
      this.cache.set(source, s);
      keepAlive.push(s);
    }
    return s;
  }

  get<T>(source: string, ...params: unknown[]): T | undefined {
    return this.stmt(source).get(...params) as T | undefined;
  }

  all<T>(source: string, ...params: unknown[]): T[] {
    return this.stmt(source).all(...params) as T[];
  }

  run(source: string, ...params: unknown[]): Database.RunResult {
    this.writes++;
    return this.stmt(source).run(...params);
  }

  /**
   * Creates the index of orders by contact the first time a query needs it (a no-op afterwards;
   * inside the current transaction, so a rolled-back batch takes it away and the next call
   * creates it again).
   */
  ensureOrdersByContact(): void {
    this.run('CREATE INDEX IF NOT EXISTS orders_by_contact ON orders (business_id, contact_id, order_ts)');
  }

  /**
   * Rows the domain keeps in memory between requests (contact statistics by email, the upsert's
   * hot read). They always match the database including the open batch: the domain updates or
   * drops an entry with each write, and every rollback empties the whole map.
   */
  readonly rowCache = new Map<string, unknown>();

  /** Number of write statements run so far (tells whether a failed unit of work wrote anything). */
  private writes = 0;
  private batch: Batch | undefined;

  /**
   * Runs `fn` atomically. Inside a group-commit batch it runs without a savepoint: every domain
   * function checks before it writes, and if one fails after writing anyway (an SQLite error),
   * the whole batch is rolled back and every request in it fails, so nothing half-applied is
   * ever committed. Outside a batch it is a transaction of its own (a savepoint when nested).
   */
  transaction<T>(fn: () => T): T {
    const batch = this.batch;
    if (batch) {
      const before = this.writes;
      try {
        return fn();
      } catch (e) {
        if (this.writes !== before) this.abortBatch(batch, e);
        throw e;
      }
    }
    const nested = this.sql.inTransaction;
    this.stmt(nested ? 'SAVEPOINT tx' : 'BEGIN').run();
    try {
      const result = fn();
      this.stmt(nested ? 'RELEASE tx' : 'COMMIT').run();
      return result;
    } catch (e) {
      if (this.sql.inTransaction) {
        if (nested) {
          this.stmt('ROLLBACK TO tx').run();
          this.stmt('RELEASE tx').run();
        } else this.stmt('ROLLBACK').run();
        this.rowCache.clear();
      }
      throw e;
    }
  }

  /**
   * Group commit: the first write of an event-loop turn opens a transaction that commits on
   * setImmediate, so the requests handled in the same turn share one commit. Callers answer
   * only after `flushed()` resolves, so no response ever reports a write that is not committed.
   */
  beginBatch(): void {
    if (this.batch || this.sql.inTransaction) return;
    this.stmt('BEGIN').run();
    let settle: Pick<Batch, 'resolve' | 'reject'> = { resolve: () => {}, reject: () => {} };
    const promise = new Promise<void>((resolve, reject) => {
      settle = { resolve, reject };
    });
    // A failed batch is reported to every waiting request; never as an unhandled rejection.
    promise.catch(() => undefined);
    const batch: Batch = { promise, ...settle };
    this.batch = batch;
    setImmediate(() => this.commitBatch(batch));
  }

  private commitBatch(batch: Batch): void {
    if (this.batch !== batch) return;
    this.batch = undefined;
    try {
      if (this.sql.open && this.sql.inTransaction) this.stmt('COMMIT').run();
      batch.resolve();
    } catch (e) {
      this.rowCache.clear();
      if (this.sql.inTransaction) this.stmt('ROLLBACK').run();
      batch.reject(e);
    }
  }

  private abortBatch(batch: Batch, cause: unknown): void {
    if (this.batch !== batch) return;
    this.batch = undefined;
    this.rowCache.clear();
    if (this.sql.inTransaction) this.stmt('ROLLBACK').run();
    batch.reject(cause);
  }

  /** Resolves once the writes made so far are committed; rejects if their batch failed. */
  flushed(): Promise<void> {
    return this.batch?.promise ?? Promise.resolve();
  }

  /** Writes the WAL back into the main file and closes the database. */
  close(): void {
    if (!this.sql.open) return;
    if (this.batch) this.commitBatch(this.batch);
    else if (this.sql.inTransaction) this.stmt('COMMIT').run();
    try {
      this.sql.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    } finally {
      this.sql.close();
    }
  }
}
