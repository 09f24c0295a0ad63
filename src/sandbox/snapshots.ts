/**
 * Snapshots of the whole sandbox state: a consistent image of the database (SQLite's
 * serialization, taken between group-commit batches), kept in memory for an in-memory sandbox or
 * in a folder beside the database file (`<db>.snapshots/NAME.sqlite`). Restoring swaps the whole
 * database in one synchronous step between batches, so no request sees half a state; requests
 * arriving meanwhile wait for the event loop as any other.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SNAPSHOT_NAME, type SnapshotInfo } from '../contract/snapshots.js';
import type { SandboxDb } from './db.js';
import { ServiceError } from './domain/errors.js';

export function checkSnapshotName(name: string): string {
  if (!SNAPSHOT_NAME.test(name))
    throw new ServiceError(
      400,
      'invalid_request',
      'a snapshot name is 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit',
      {
        details: [{ field: 'name', message: 'must match [A-Za-z0-9][A-Za-z0-9._-]{0,63}' }],
      },
    );
  return name;
}

function notFound(name: string): ServiceError {
  return new ServiceError(404, 'not_found', `no snapshot named ${name} (svc sandbox snapshot list)`);
}

export class Snapshots {
  private readonly memory = new Map<string, { image: Buffer; info: SnapshotInfo }>();
  /** Where snapshot files go; undefined for an in-memory sandbox (snapshots then stay in memory). */
  private readonly dir: string | undefined;

  constructor(
    private readonly db: SandboxDb,
    private readonly now: () => number,
  ) {
    const inMemory = db.file === ':memory:' || db.file.startsWith('file:');
    this.dir = inMemory ? undefined : `${db.file}.snapshots`;
  }

  /** Waits until no batch is open (every write so far committed). */
  private async settled(): Promise<void> {
    while (this.db.batching) await this.db.flushed().catch(() => undefined);
  }

  /** Saves (or replaces) a snapshot; `replaced` tells whether one of that name existed. */
  async save(name: string): Promise<{ info: SnapshotInfo; replaced: boolean }> {
    checkSnapshotName(name);
    await this.settled();
    const image = this.db.image();
    const count = (table: string) => this.db.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)?.n ?? 0;
    const info: SnapshotInfo = {
      name,
      created_at: new Date(this.now()).toISOString(),
      bytes: image.length,
      contacts: count('contacts'),
      orders: count('orders'),
    };
    const replaced = this.has(name);
    if (this.dir === undefined) this.memory.set(name, { image, info });
    else {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      writeFileSync(join(this.dir, `${name}.sqlite`), image, { mode: 0o600 });
      writeFileSync(join(this.dir, `${name}.json`), `${JSON.stringify(info)}\n`, { mode: 0o600 });
    }
    return { info, replaced };
  }

  private has(name: string): boolean {
    return this.dir === undefined ? this.memory.has(name) : existsSync(join(this.dir, `${name}.sqlite`));
  }

  list(): SnapshotInfo[] {
    if (this.dir === undefined) return [...this.memory.values()].map((s) => s.info).sort((a, b) => a.name.localeCompare(b.name));
    if (!existsSync(this.dir)) return [];
    const dir = this.dir;
    return readdirSync(dir)
      .filter((f) => f.endsWith('.sqlite') && SNAPSHOT_NAME.test(f.slice(0, -7)))
      .map((f) => {
        const name = f.slice(0, -7);
        try {
          return JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as SnapshotInfo;
        } catch {
          const st = statSync(join(dir, f));
          return { name, created_at: st.mtime.toISOString(), bytes: st.size, contacts: -1, orders: -1 };
        }
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Replaces the whole state with the snapshot's, atomically; returns how long the swap took (ms). */
  async restore(name: string): Promise<{ info: SnapshotInfo; ms: number }> {
    checkSnapshotName(name);
    let image: Buffer;
    let info: SnapshotInfo | undefined;
    if (this.dir === undefined) {
      const s = this.memory.get(name);
      if (!s) throw notFound(name);
      image = s.image;
      info = s.info;
    } else {
      const file = join(this.dir, `${name}.sqlite`);
      if (!existsSync(file)) throw notFound(name);
      image = readFileSync(file);
      info = this.list().find((s) => s.name === name);
    }
    await this.settled();
    const started = performance.now();
    this.db.replaceWith(image);
    return { info: info as SnapshotInfo, ms: performance.now() - started };
  }

  delete(name: string): void {
    checkSnapshotName(name);
    if (!this.has(name)) throw notFound(name);
    if (this.dir === undefined) this.memory.delete(name);
    else for (const ext of ['sqlite', 'json']) rmSync(join(this.dir, `${name}.${ext}`), { force: true });
  }
}
