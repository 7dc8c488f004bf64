// Every saved config this process routes: files from `--configs DIR` and configs saved over the API,
// compiled and installed in the ConfigResolver, kept current from the store's change feed (so a
// config saved through any process replaces the live router in every process). On an ID clash the
// file wins: files are what was reviewed and deployed (docs/api.md).
import { type CheckResult, checkConfig, type GuardrailLookup, type RoutePlan } from '../../../compiler/config/index.ts';
import { namedGuardrails } from '../../../compiler/config/guardrail-lookup.ts';
import type { ConfigResolver, ResolverDeps } from '../../inference/config-resolver.ts';
import type { StoreChange } from '../../store/change-feed.ts';
import type { SavedConfigRecord, SavedConfigStore } from '../../store/config-store.ts';
import type { GatewayLogger } from '../../core/log.ts';
import type { FileConfig } from './config-files.ts';
import { TimeSlice } from '../../core/time-slice.ts';
import { leavesOf, type PlanLeaf } from '../../core/plan.ts';
import { parsePromptRef } from '../prompts/prompt-ref.ts';

interface InstalledApiConfig {
  version: number;
  lastUpdatedAt: string;
  config: Record<string, unknown>;
  plan: RoutePlan | null;
}

export class ConfigCatalog {
  readonly #resolver: ConfigResolver;
  readonly #store: SavedConfigStore;
  readonly #logger: GatewayLogger;
  readonly #files = new Map<string, FileConfig>();
  readonly #api = new Map<string, InstalledApiConfig>();
  readonly #guardrails: GuardrailLookup | null;

  /** `guardrails`: where the configs' guardrail names resolve. */
  constructor(resolver: ConfigResolver, store: SavedConfigStore, logger: GatewayLogger, guardrails: GuardrailLookup | null = null) {
    this.#resolver = resolver;
    this.#store = store;
    this.#logger = logger;
    this.#guardrails = guardrails;
  }

  /** Checks and plans a config as this catalog compiles them (its guardrail names resolve here). */
  check(config: unknown, id: string): CheckResult {
    return checkConfig(config, id, { guardrails: this.#guardrails, secrets: 'refuse' });
  }

  /** IDs of the configs (files and API) that name guardrail `name`. */
  configsNaming(name: string): string[] {
    const ids = new Set<string>();
    for (const file of this.#files.values()) if (namedGuardrails(file.config).includes(name)) ids.add(file.id);
    for (const [id, installed] of this.#api) if (namedGuardrails(installed.config).includes(name)) ids.add(id);
    return [...ids].sort();
  }

  /** IDs of the configs (files and API) whose targets render prompt `promptId`, at any version. */
  configsUsingPrompt(promptId: string): string[] {
    return this.#configsWithLeaf((leaf) => leaf.promptId !== null && parsePromptRef(leaf.promptId).id === promptId);
  }

  /** IDs of the configs (files and API) whose targets call a virtual key by its ID `id` or as `@slug` (null: not by that). */
  configsUsingVirtualKey(id: string | null, slug: string | null): string[] {
    return this.#configsWithLeaf((leaf) => (id !== null && leaf.virtualKey === id) || (slug !== null && leaf.provider === `@${slug}`));
  }

  #configsWithLeaf(matches: (leaf: PlanLeaf) => boolean): string[] {
    const uses = (plan: RoutePlan | null): boolean => plan !== null && leavesOf(plan.root).some(matches);
    const ids = new Set<string>();
    for (const file of this.#files.values()) if (uses(file.plan)) ids.add(file.id);
    for (const [id, installed] of this.#api) if (uses(installed.plan)) ids.add(id);
    return [...ids].sort();
  }

  /**
   * Compiles again every config that names one of these guardrails (they changed): the new checks
   * route from now on. In time slices: a guardrail many configs name must not hold every request.
   */
  async recompileNaming(names: readonly string[]): Promise<void> {
    const changed = new Set(names);
    const names_ = (config: unknown): boolean => namedGuardrails(config).some((name) => changed.has(name));
    const slice = new TimeSlice();
    for (const file of this.#files.values()) {
      if (!names_(file.config)) continue;
      await slice.pause();
      const result = checkConfig(file.config, file.id, { guardrails: this.#guardrails, secrets: { env: process.env } });
      if (result.ok) {
        file.plan = result.plan;
        this.#resolver.setSaved(result.plan);
      } else {
        // A guardrail file it names is gone or broken: like any invalid file, it keeps the router it had (with the checks it had), loudly.
        this.#logger.error('saved_config_invalid', { config_id: file.id, errors: result.errors.map((e) => `${e.code} ${e.pointer}`), kept: 'the router loaded before' });
      }
    }
    for (const [id] of this.#api) {
      await slice.pause();
      // Read after the pause: a change that landed meanwhile is what gets compiled.
      const installed = this.#api.get(id);
      if (installed === undefined || !names_(installed.config)) continue;
      this.#install(id, installed.version, installed.lastUpdatedAt, installed.config);
    }
  }

  installFiles(files: readonly FileConfig[]): void {
    for (const file of files) {
      this.#files.set(file.id, file);
      this.#resolver.setSaved(file.plan);
    }
  }

  /**
   * Replaces the file configs with `next` (a reload of the folder): a changed plan is swapped in
   * atomically (requests in flight finish on the router they started with), a new file is added, and
   * a file that is gone stops routing (an API config with its ID routes again). The IDs that changed.
   */
  replaceFiles(next: readonly FileConfig[]): string[] {
    const changed: string[] = [];
    const wanted = new Map(next.map((file) => [file.id, file]));
    for (const id of [...this.#files.keys()]) {
      if (wanted.has(id)) continue;
      this.#files.delete(id);
      const api = this.#api.get(id)?.plan ?? null;
      if (api !== null) this.#resolver.setSaved(api);
      else this.#resolver.deleteSaved(id);
      changed.push(id);
    }
    for (const file of next) {
      const old = this.#files.get(file.id);
      this.#files.set(file.id, file);
      if (old !== undefined && JSON.stringify(old.plan) === JSON.stringify(file.plan)) continue;
      this.#resolver.setSaved(file.plan);
      changed.push(file.id);
    }
    return changed;
  }

  file(id: string): FileConfig | undefined {
    return this.#files.get(id);
  }

  /** File configs sorted by ID. */
  files(): FileConfig[] {
    return [...this.#files.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** What routers here are built from (transport with the stored credentials, settings): a simulation uses the same. */
  get routing(): Readonly<ResolverDeps> {
    return this.#resolver.deps;
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
    // While serving (a resync), thousands of configs compile in slices.
    const slice = new TimeSlice();
    for (const record of items) {
      await slice.pause();
      this.#apply(record.id, record);
    }
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
    this.#install(id, record.version, record.lastUpdatedAt, record.config);
  }

  #install(id: string, version: number, lastUpdatedAt: string, config: Record<string, unknown>): void {
    const result = checkConfig(config, id, { guardrails: this.#guardrails, secrets: 'refuse' });
    // A stored config that no longer compiles (a newer gateway checks more, a guardrail it names is gone) stops routing, loudly.
    const plan = result.ok ? result.plan : null;
    if (!result.ok) this.#logger.error('saved_config_invalid', { config_id: id, version, errors: result.errors.map((e) => `${e.code} ${e.pointer}`) });
    this.#api.set(id, { version, lastUpdatedAt, config, plan });
    if (this.#files.has(id)) {
      this.#logger.warn('saved_config_shadowed', { config_id: id, reason: 'a file in --configs has the same ID and wins' });
      return;
    }
    if (plan !== null) this.#resolver.setSaved(plan);
    else this.#resolver.deleteSaved(id);
  }
}

