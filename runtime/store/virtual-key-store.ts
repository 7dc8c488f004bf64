// Virtual keys: stored provider credentials (an integration: provider, credential, default
// options), referenced by `virtual_key`, `x-gateway-virtual-key` and, when it has a slug, by
// `provider: "@slug"`. The credential and the secret options travel as a sealed box (AES-256-GCM,
// sealed by runtime/api/virtual-keys): this store never sees them in the clear.
import type { Page, PageRequest } from './page.ts';
import { RECORD_KINDS } from './record-kinds.ts';

/** The change-feed kind of virtual keys. */
export const VIRTUAL_KEYS_KIND = RECORD_KINDS.virtualKeys;

export interface VirtualKeyRecord {
  id: string;
  name: string | null;
  /** `@slug` names this integration in configs; unique when set. */
  slug: string | null;
  provider: string;
  /** Provider options that are not secret (regions, resource names, deployments, …), under config field names. */
  options: Record<string, unknown>;
  /** The sealed credential and secret options. */
  sealed: string;
  /** A recognisable fragment of the key (`sk-…abcd`), or null. */
  keyHint: string | null;
  /** Names of the secrets inside `sealed` (`api_key`, `cloudc_secret_access_key`, …). */
  secretNames: string[];
  version: number;
  createdAt: string;
  lastUpdatedAt: string;
}

export interface VirtualKeyInput {
  name: string | null;
  slug: string | null;
  provider: string;
  options: Record<string, unknown>;
  sealed: string;
  keyHint: string | null;
  secretNames: string[];
}

export interface VirtualKeyStore {
  /** Throws UniqueViolationError when the ID or the slug is taken. */
  create(id: string, input: VirtualKeyInput): Promise<VirtualKeyRecord>;
  get(id: string): Promise<VirtualKeyRecord | null>;
  /** Oldest first. */
  list(page: PageRequest): Promise<Page<VirtualKeyRecord>>;
  /** Every record, for the in-memory ring. */
  loadAll(): Promise<VirtualKeyRecord[]>;
  /** Replaces the record's fields; null when no record has that ID. Throws UniqueViolationError on a slug clash. */
  update(id: string, input: VirtualKeyInput): Promise<VirtualKeyRecord | null>;
  delete(id: string): Promise<boolean>;
}
