// Keeps in-memory copies (key ring, routers, prompts, policies) current in every process by polling
// the store's revisions: one small query per interval, the same on SQLite and PostgreSQL. Writers
// log each change in the same transaction (sql/record-change.ts); a reader that sees a higher
// revision fetches the changed IDs and hands them to the kind's listeners.
import { type SqlDatabase, StoreUnavailableError } from './sql/sql-database.ts';

/** The IDs written since the last delivery, or `all` when the log no longer reaches back that far. */
export type StoreChange = { kind: string; all: false; ids: string[] } | { kind: string; all: true };
export type ChangeListener = (change: StoreChange) => Promise<void> | void;

export const DEFAULT_POLL_MS = 1000;

/**
 * A poll still unanswered after this long is reported as failing while it goes on waiting: a database
 * gone silent under open connections fails a statement only at its timeout (30 s on PostgreSQL), and
 * until then /v1/health and `gateway_backend_up` would say the store is fine.
 */
export const POLL_STALL_MS = 5000;

export interface ChangeFeedOptions {
  /** Called when a listener or a poll fails; the feed keeps going. */
  onError?: (error: unknown, kind: string | null) => void;
  /** Called after each poll that read the store and delivered every change it found. */
  onPolled?: () => void;
}

export class ChangeFeed {
  readonly #db: SqlDatabase;
  readonly #listeners = new Map<string, ChangeListener[]>();
  readonly #seen = new Map<string, number>();
  readonly #onError: (error: unknown, kind: string | null) => void;
  readonly #onPolled: () => void;
  #running: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | null = null;
  #pollMs = 0;
  #closed = false;

  constructor(db: SqlDatabase, options: ChangeFeedOptions = {}) {
    this.#db = db;
    this.#onError = options.onError ?? (() => undefined);
    this.#onPolled = options.onPolled ?? (() => undefined);
  }

  /**
   * Registers a listener and returns once the kind's current revision is known: everything written
   * after this resolves reaches the listener, so load the kind's records *after* awaiting it.
   */
  async watch(kind: string, listener: ChangeListener): Promise<void> {
    const list = this.#listeners.get(kind);
    if (list !== undefined) {
      list.push(listener);
      return;
    }
    this.#listeners.set(kind, [listener]);
    const row = await this.#db.get<{ revision: number }>('SELECT revision FROM store_revisions WHERE kind = ?', [kind]);
    this.#seen.set(kind, Number(row?.revision ?? 0));
  }

  /** Polls every `pollMs` until close(); 0 or less turns polling off (refresh() still works). */
  start(pollMs: number = DEFAULT_POLL_MS): void {
    this.#pollMs = pollMs;
    this.#schedule();
  }

  /** Delivers every change committed so far; concurrent calls share the work in order. */
  refresh(): Promise<void> {
    const next = this.#running.then(() => this.#poll());
    this.#running = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  #schedule(): void {
    if (this.#closed || this.#pollMs <= 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      const stalled = setTimeout(() => this.#onError(new StoreUnavailableError(`no answer to the change feed's poll within ${POLL_STALL_MS} ms`), null), POLL_STALL_MS);
      stalled.unref();
      this.refresh()
        .catch((error: unknown) => this.#onError(error, null))
        .finally(() => {
          clearTimeout(stalled);
          this.#schedule();
        });
    }, this.#pollMs);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    if (this.#closed || this.#listeners.size === 0) return;
    const rows = await this.#db.all<{ kind: string; revision: number }>('SELECT kind, revision FROM store_revisions');
    let delivered = true;
    for (const row of rows) {
      const seen = this.#seen.get(row.kind);
      if (seen === undefined || Number(row.revision) <= seen) continue;
      if (!(await this.#deliver(row.kind, seen))) delivered = false;
    }
    if (delivered) this.#onPolled();
  }

  /** False when a listener failed (the changes come again at the next poll). */
  async #deliver(kind: string, seen: number): Promise<boolean> {
    const changes = await this.#db.all<{ revision: number; record_id: string }>(
      'SELECT revision, record_id FROM store_changes WHERE kind = ? AND revision > ? ORDER BY revision',
      [kind, seen],
    );
    if (changes.length === 0) return true;
    const contiguous = Number(changes[0].revision) === seen + 1;
    const change: StoreChange = contiguous ? { kind, all: false, ids: [...new Set(changes.map((c) => c.record_id))] } : { kind, all: true };
    let failed = false;
    for (const listener of this.#listeners.get(kind) ?? []) {
      try {
        await listener(change);
      } catch (error) {
        failed = true;
        this.#onError(error, kind);
      }
    }
    // A failed listener (say, the database went away mid-reload) gets the same changes again next time;
    // listeners are idempotent reloads, so the others repeating theirs is harmless.
    if (!failed) this.#seen.set(kind, Number(changes[changes.length - 1].revision));
    return !failed;
  }
}
