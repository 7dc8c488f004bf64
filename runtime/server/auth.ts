// Gateway API-key authentication. Active keys live in memory as SHA-256 digests, loaded from the
// store at start and again when the store's change feed says keys changed (in this process or in
// another, `gateway keys` included), so the request path never waits on the database.
import { timingSafeEqual } from 'node:crypto';
import type { ActiveApiKey, ApiKeyRecord, ApiKeyStore } from '../store/api-key-store.ts';
import type { StoreChange } from '../store/change-feed.ts';
import { hashApiKey } from '../store/api-key-secret.ts';
import { GatewayError } from '../core/errors.ts';
import { API_KEY_HEADER } from '../core/gateway-headers.ts';

/** Longer values cannot be keys this gateway issued or accepted; refuse them before hashing. */
const MAX_KEY_LENGTH = 1024;

interface KeyEntry {
  digest: Buffer;
  record: ApiKeyRecord;
}

/** The key a connection last authenticated with, valid while the ring is the same generation. */
interface ConnectionKey {
  header: string;
  generation: number;
  record: ApiKeyRecord;
}

export class ApiKeyRing {
  private readonly store: ApiKeyStore;
  private keys = new Map<string, KeyEntry>();
  /** Key id → its hash in `keys`, so a change to one key is applied without reading them all. */
  private hashById = new Map<string, string>();
  /** Bumped by every reload and change, which forgets every connection's remembered key (revocations apply at once). */
  private generation = 0;
  private readonly byConnection = new WeakMap<object, ConnectionKey>();

  constructor(store: ApiKeyStore) {
    this.store = store;
  }

  get size(): number {
    return this.keys.size;
  }

  /** Replaces the in-memory keys with the store's active ones in one swap. */
  async reload(): Promise<void> {
    const active = await this.store.loadActive();
    this.keys = new Map();
    this.hashById = new Map();
    for (const key of active) this.#put(key);
    this.generation++;
  }

  /**
   * Applies the store's change feed: only the keys that changed are read again (a created key
   * added, a revoked one dropped), not every key, which on SQLite is a read on the serving thread
   * (~100 ms at 20,000 keys); a feed that lost track reloads them all.
   */
  readonly onChange = async (change: StoreChange): Promise<void> => {
    if (change.all) return this.reload();
    const active = await this.store.loadActiveByIds(change.ids);
    for (const id of change.ids) {
      const hash = this.hashById.get(id);
      if (hash === undefined) continue;
      this.keys.delete(hash);
      this.hashById.delete(id);
    }
    for (const key of active) this.#put(key);
    this.generation++;
  };

  #put({ hash, record }: ActiveApiKey): void {
    this.keys.set(hash, { digest: Buffer.from(hash, 'hex'), record });
    this.hashById.set(record.id, hash);
  }

  /**
   * The record of the key in the header, or throws 401 `missing_gateway_api_key` / `invalid_gateway_api_key`.
   * `connection` (the socket) remembers the key it last authenticated with, so the requests that
   * follow on a keep-alive connection skip the hash. Comparing a header with that remembered one
   * reveals nothing: it is a key this same connection already presented successfully.
   */
  authenticate(header: string | string[] | undefined, connection?: object): ApiKeyRecord {
    if (header === undefined || header === '') throw new GatewayError('missing_gateway_api_key');
    if (typeof header !== 'string' || header.length > MAX_KEY_LENGTH) throw new GatewayError('invalid_gateway_api_key');
    if (connection !== undefined) {
      const known = this.byConnection.get(connection);
      if (known !== undefined && known.header === header && known.generation === this.generation) return known.record;
    }
    const record = this.#verify(header);
    if (connection !== undefined) this.byConnection.set(connection, { header, generation: this.generation, record });
    return record;
  }

  #verify(header: string): ApiKeyRecord {
    const hex = hashApiKey(header);
    const entry = this.keys.get(hex);
    // The map lookup only reveals whether a SHA-256 digest is known, which an attacker cannot steer
    // byte by byte; the constant-time comparison makes the final check independent of the input.
    if (entry === undefined || !timingSafeEqual(entry.digest, Buffer.from(hex, 'hex'))) {
      throw new GatewayError('invalid_gateway_api_key');
    }
    return entry.record;
  }
}
