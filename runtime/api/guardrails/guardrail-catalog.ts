// Every named guardrail this process knows: files from the guardrails folder (they win on an ID
// clash, as file configs do) and guardrails stored over the API, kept current from the store's
// change feed. It is where configs' guardrail names resolve when they compile (files, API configs,
// inline configs); a changed guardrail tells its listeners, which compile the configs naming it again.
import type { GuardrailFile } from '../../../compiler/config/guardrail-files.ts';
import type { GuardrailLookup, NamedGuardrail } from '../../../compiler/config/guardrail-lookup.ts';
import type { StoreChange } from '../../store/change-feed.ts';
import type { GuardrailStore, StoredGuardrailRecord } from '../../store/guardrail-store.ts';

export class GuardrailCatalog implements GuardrailLookup {
  readonly where = 'the guardrails folder or the stored guardrails (/v1/guardrails)';
  readonly #store: GuardrailStore;
  readonly #files = new Map<string, GuardrailFile>();
  #stored = new Map<string, StoredGuardrailRecord>();
  readonly #listeners: Array<(names: readonly string[]) => void> = [];

  constructor(store: GuardrailStore) {
    this.#store = store;
  }

  installFiles(files: readonly GuardrailFile[]): void {
    for (const file of files) this.#files.set(file.id, file);
  }

  /** Replaces the file guardrails (a reload of the folder) and tells the listeners which changed. */
  replaceFiles(files: readonly GuardrailFile[]): string[] {
    const next = new Map(files.map((file) => [file.id, file]));
    const changed = [...new Set([...this.#files.keys(), ...next.keys()])].filter((id) => JSON.stringify(this.#files.get(id)?.guardrail) !== JSON.stringify(next.get(id)?.guardrail));
    this.#files.clear();
    for (const [id, file] of next) this.#files.set(id, file);
    if (changed.length > 0) for (const listener of this.#listeners) listener(changed);
    return changed;
  }

  get(name: string): NamedGuardrail | undefined {
    return this.#files.get(name)?.guardrail ?? this.#stored.get(name)?.guardrail;
  }

  names(): string[] {
    return [...new Set([...this.#files.keys(), ...this.#stored.keys()])];
  }

  file(id: string): GuardrailFile | undefined {
    return this.#files.get(id);
  }

  /** File guardrails sorted by ID. */
  files(): GuardrailFile[] {
    return [...this.#files.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Told the names whose guardrail changed (created, updated or deleted). */
  onChanged(listener: (names: readonly string[]) => void): void {
    this.#listeners.push(listener);
  }

  async loadAll(): Promise<void> {
    const { items } = await this.#store.list({ limit: null, offset: 0 });
    const next = new Map(items.map((record) => [record.id, record]));
    const changed = [...new Set([...this.#stored.keys(), ...next.keys()])].filter((id) => JSON.stringify(this.#stored.get(id)) !== JSON.stringify(next.get(id)));
    this.#stored = next;
    this.#tell(changed);
  }

  readonly onChange = async (change: StoreChange): Promise<void> => {
    if (change.all) return this.loadAll();
    const changed: string[] = [];
    for (const id of change.ids) {
      const record = await this.#store.get(id);
      const known = this.#stored.get(id);
      if (record === null) {
        if (known === undefined) continue;
        this.#stored.delete(id);
      } else {
        if (known?.version === record.version && known.lastUpdatedAt === record.lastUpdatedAt) continue;
        this.#stored.set(id, record);
      }
      changed.push(id);
    }
    this.#tell(changed);
  };

  #tell(names: readonly string[]): void {
    // A file guardrail shadows a stored one: a change behind it changes nothing.
    const visible = names.filter((name) => !this.#files.has(name));
    if (visible.length === 0) return;
    for (const listener of this.#listeners) listener(visible);
  }
}
