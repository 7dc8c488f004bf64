// Every saved config this process routes: files from `--configs DIR` and configs saved over the API,
// compiled and installed in the ConfigResolver, kept current from the store's change feed (so a
// config saved through any process replaces the live router in every process). On an ID clash the
// file wins: files are what was reviewed and deployed (docs/api.md).
import { checkConfig, type RoutePlan } from '../../../compiler/config/index.ts';
import type { ConfigResolver } from '../../inference/config-resolver.ts';
import type { StoreChange } from '../../store/change-feed.ts';
import type { SavedConfigRecord, SavedConfigStore } from '../../store/config-store.ts';
import type { GatewayLogger } from '../../core/log.ts';
import type { FileConfig } from './config-files.ts';

interface InstalledApiConfig {
  version: number;
  lastUpdatedAt: string;
  plan: RoutePlan | null;
}

export class ConfigCatalog {
  readonly #resolver: ConfigResolver;
  readonly #store: SavedConfigStore;
  readonly #logger: GatewayLogger;
  readonly #files = new Map<string, FileConfig>();
  readonly #api = new Map<string, InstalledApiConfig>();

  constructor(resolver: ConfigResolver, store: SavedConfigStore, logger: GatewayLogger) {
    this.#resolver = resolver;
    this.#store = store;
    this.#logger = logger;
  }

  installFiles(files: readonly FileConfig[]): void {
    for (const file of files) {
      this.#files.set(file.id, file);
      this.#resolver.setSaved(file.plan);
    }
  }

  file(id: string): FileConfig | undefined {
    return this.#files.get(id);
  }

  /** File configs sorted by ID. */
  files(): FileConfig[] {
    return [...this.#files.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** The plan that routes `id` in this process (the file's on a clash), or null. */
  planOf(id: string): RoutePlan | null {
    return this.#files.get(id)?.plan ?? this.#api.get(id)?.plan ?? null;
  }

  /** Loads every API config (at start, and when the change log no longer reaches back far enough). */
  async loadAll(): Promise<void> {
    const { items } = await this.#store.list({ limit: null, offset: 0 });
    const present = new Set(items.map((r) => r.id));
    for (const id of [...this.#api.keys()]) if (!present.has(id)) this.#apply(id, null);
    for (const record of items) this.#apply(record.id, record);
  }

  /** The change-feed listener: re-reads the configs that changed. */
  readonly onChange = async (change: StoreChange): Promise<void> => {
    if (change.all) return this.loadAll();
    for (const id of change.ids) this.#apply(id, await this.#store.get(id));
  };

  #apply(id: string, record: SavedConfigRecord | null): void {
    const installed = this.#api.get(id);
    if (record === null) {
      if (installed === undefined) return;
      this.#api.delete(id);
      if (!this.#files.has(id)) this.#resolver.deleteSaved(id);
      return;
    }
    if (installed?.version === record.version && installed.lastUpdatedAt === record.lastUpdatedAt) return;
    const result = checkConfig(record.config, id);
    // A stored config that no longer compiles (a newer gateway checks more) stops routing, loudly.
    const plan = result.ok ? result.plan : null;
    if (!result.ok) this.#logger.error('saved_config_invalid', { config_id: id, version: record.version, errors: result.errors.map((e) => `${e.code} ${e.pointer}`) });
    this.#api.set(id, { version: record.version, lastUpdatedAt: record.lastUpdatedAt, plan });
    if (this.#files.has(id)) {
      this.#logger.warn('saved_config_shadowed', { config_id: id, reason: 'a file in --configs has the same ID and wins' });
      return;
    }
    if (plan !== null) this.#resolver.setSaved(plan);
    else this.#resolver.deleteSaved(id);
  }
}
