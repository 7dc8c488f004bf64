// The API-key store contract. Backend-neutral: one implementation (sql/sql-api-key-store.ts) runs on
// SQLite and PostgreSQL, every method is async and timestamps travel as ISO 8601 strings.
// The connection belongs to the GatewayStore that made the ApiKeyStore (open-store.ts), not to it.

export const API_KEY_SCOPES = ['admin', 'inference'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** What the gateway knows about a key, never including the secret or its hash. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  scope: ApiKeyScope;
  workspaceId: string;
  organisationId: string;
  createdAt: string;
  revokedAt: string | null;
}

/** An active key as the request path needs it: the record plus the SHA-256 of the secret (hex). */
export interface ActiveApiKey {
  hash: string;
  record: ApiKeyRecord;
}

export interface CreateApiKeyInput {
  name?: string;
  scope?: ApiKeyScope;
  /** Defaults to the store's own workspace, generated once when the store is first opened. */
  workspaceId?: string;
  organisationId?: string;
}

export interface CreatedApiKey {
  /** The plaintext key: returned once, never stored. */
  key: string;
  record: ApiKeyRecord;
}

export interface ApiKeyStore {
  create(input?: CreateApiKeyInput): Promise<CreatedApiKey>;
  /**
   * Stores a key chosen by the operator (GATEWAY_API_KEY) unless a key with the same hash exists,
   * revoked or not: a revocation must outlive restarts that still carry the old environment.
   */
  ensureKey(key: string, input?: CreateApiKeyInput): Promise<{ record: ApiKeyRecord; created: boolean }>;
  /** Oldest first; only the organisation's keys when `organisationId` is given. */
  list(filter?: { organisationId?: string }): Promise<ApiKeyRecord[]>;
  get(id: string): Promise<ApiKeyRecord | null>;
  /** Null when no key has that ID; an already revoked key is returned unchanged. */
  revoke(id: string): Promise<ApiKeyRecord | null>;
  /** Every key that is not revoked, for the in-memory key ring. */
  loadActive(): Promise<ActiveApiKey[]>;
  /** Those of these keys that are not revoked (a change the ring applies without reading every key). */
  loadActiveByIds(ids: readonly string[]): Promise<ActiveApiKey[]>;
}

export function isApiKeyScope(value: unknown): value is ApiKeyScope {
  return value === 'admin' || value === 'inference';
}
