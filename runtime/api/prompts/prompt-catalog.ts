// Every prompt version, compiled, in memory: what the request path reads when a config's prompt_id
// renders a template before routing (the request path never waits on the database). Kept current
// from the store's change feed.
import type { StoreChange } from '../../store/change-feed.ts';
import type { PromptStore } from '../../store/prompt-store.ts';
import type { GatewayLogger } from '../../core/log.ts';
import { parsePromptRef } from './prompt-ref.ts';
import { type CompiledTemplate, compileTemplate } from '../../pipeline/prompt/template.ts';

interface CatalogEntry {
  latest: number;
  versions: Map<number, CompiledTemplate>;
}

export class PromptCatalog {
  readonly #store: PromptStore;
  readonly #logger: GatewayLogger;
  #prompts = new Map<string, CatalogEntry>();

  constructor(store: PromptStore, logger: GatewayLogger) {
    this.#store = store;
    this.#logger = logger;
  }

  /** The template `ref` names (`id` or `id@version`), or null. */
  resolve(ref: string): CompiledTemplate | null {
    const { id, version } = parsePromptRef(ref);
    const entry = this.#prompts.get(id);
    if (entry === undefined) return null;
    return entry.versions.get(version ?? entry.latest) ?? null;
  }

  get size(): number {
    return this.#prompts.size;
  }

  async loadAll(): Promise<void> {
    const { items } = await this.#store.list({ limit: null, offset: 0 });
    const next = new Map<string, CatalogEntry>();
    for (const prompt of items) {
      const entry = await this.#load(prompt.id);
      if (entry !== null) next.set(prompt.id, entry);
    }
    this.#prompts = next;
  }

  readonly onChange = async (change: StoreChange): Promise<void> => {
    if (change.all) return this.loadAll();
    for (const id of change.ids) {
      const entry = await this.#load(id);
      if (entry === null) this.#prompts.delete(id);
      else this.#prompts.set(id, entry);
    }
  };

  async #load(id: string): Promise<CatalogEntry | null> {
    const versions = await this.#store.versions(id);
    if (versions === null) return null;
    const compiled = new Map<number, CompiledTemplate>();
    for (const version of versions) {
      try {
        compiled.set(version.version, compileTemplate(version.template));
      } catch (error) {
        // Saved templates were checked when saved; one that no longer parses is skipped, loudly.
        this.#logger.error('prompt_template_invalid', { prompt_id: id, version: version.version, message: (error as Error).message });
      }
    }
    return { latest: versions[versions.length - 1].version, versions: compiled };
  }
}
