// Saved configs created over the API (`/v1/configs`). Configs from `--configs DIR` are files and
// never stored; the control plane decides which wins on an ID clash (docs/api.md).
import type { Page, PageRequest } from './page.ts';

export interface SavedConfigRecord {
  id: string;
  name: string | null;
  /** The config object as accepted; it passed the compiler's check when it was saved. */
  config: Record<string, unknown>;
  /** 1 at creation, +1 on every update. */
  version: number;
  createdAt: string;
  lastUpdatedAt: string;
}

export interface SavedConfigStore {
  /** Throws UniqueViolationError when the ID is taken. */
  create(input: { id: string; name: string | null; config: Record<string, unknown> }): Promise<SavedConfigRecord>;
  get(id: string): Promise<SavedConfigRecord | null>;
  /** Oldest first; `excludeIds` leaves out IDs the caller shows from elsewhere (file configs). */
  list(page: PageRequest, options?: { excludeIds?: readonly string[] }): Promise<Page<SavedConfigRecord>>;
  /** Replaces the config (and the name, when given); null when no config has that ID. */
  update(id: string, input: { name?: string | null; config: Record<string, unknown> }): Promise<SavedConfigRecord | null>;
  delete(id: string): Promise<boolean>;
}
