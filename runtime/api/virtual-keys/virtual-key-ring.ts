// Virtual keys held in memory, opened once: the request path looks a key or a slug up in a map and
// never reads the database. The ring loads at start and follows the store's change feed, so a key
// written through any process reaches every process.
import { headerTextProblem } from '../../../compiler/config/header-values.ts';
import { canonicalProvider } from '../../../compiler/config/providers.ts';
import type { StoredCredentials, StoredIntegration } from '../../providers/stored-credentials.ts';
import type { GatewayLogger } from '../../core/log.ts';
import type { StoreChange } from '../../store/change-feed.ts';
import type { VirtualKeyRecord, VirtualKeyStore } from '../../store/virtual-key-store.ts';
import type { MasterKey } from '../../store/master-key.ts';
import { open, SecretBoxError } from '../../store/secret-box.ts';

/**
 * The first string the gateway would send in a header that no header can carry, described without
 * its value (a secret); null when every one can be sent. The API refuses such values since they were
 * found to fail every call with a 500; keys stored before that are still loaded, and named here.
 */
function unsendableField(integration: StoredIntegration): string | null {
  const fields: [string, unknown][] = [['api_key', integration.apiKey], ...Object.entries(integration.options)];
  for (const [name, value] of fields) {
    if (typeof value !== 'string') continue;
    const problem = headerTextProblem(value);
    if (problem !== null) return `its ${name} holds ${problem}, which no HTTP header can carry`;
  }
  return null;
}

export class VirtualKeyRing implements StoredCredentials {
  readonly #store: VirtualKeyStore;
  readonly #master: MasterKey;
  readonly #logger: GatewayLogger;
  readonly #byId = new Map<string, StoredIntegration>();
  readonly #bySlug = new Map<string, StoredIntegration>();
  readonly #slugOf = new Map<string, string>();

  constructor(store: VirtualKeyStore, master: MasterKey, logger: GatewayLogger) {
    this.#store = store;
    this.#master = master;
    this.#logger = logger;
  }

  virtualKey(id: string): StoredIntegration | undefined {
    return this.#byId.get(id);
  }

  slug(name: string): StoredIntegration | undefined {
    return this.#bySlug.get(name);
  }

  get size(): number {
    return this.#byId.size;
  }

  /**
   * Loads every key. At start (`strict`) a box that does not open stops the gateway: it means the
   * master key is not the one the keys were sealed with, and serving without them would only fail later.
   */
  async loadAll(strict = false): Promise<void> {
    const records = await this.#store.loadAll();
    const opened: [VirtualKeyRecord, StoredIntegration][] = [];
    for (const record of records) {
      const integration = this.#open(record, strict);
      if (integration !== null) opened.push([record, integration]);
    }
    this.#byId.clear();
    this.#bySlug.clear();
    this.#slugOf.clear();
    for (const [record, integration] of opened) this.#install(record, integration);
  }

  readonly onChange = async (change: StoreChange): Promise<void> => {
    if (change.all) {
      await this.loadAll();
      return;
    }
    for (const id of change.ids) {
      const record = await this.#store.get(id);
      this.#remove(id);
      if (record === null) continue;
      const integration = this.#open(record, false);
      if (integration !== null) this.#install(record, integration);
    }
  };

  #open(record: VirtualKeyRecord, strict: boolean): StoredIntegration | null {
    let secrets: Record<string, unknown>;
    try {
      secrets = open(this.#master, record.id, record.sealed);
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      if (strict) throw new Error(`virtual key ${record.id} cannot be opened: ${error.message}. Start with the master key it was sealed with (GATEWAY_MASTER_KEY or master.key).`);
      this.#logger.error('virtual_key_unreadable', { virtual_key_id: record.id, reason: error.message });
      return null;
    }
    const { api_key: apiKey, ...secretOptions } = secrets;
    const integration: StoredIntegration = {
      id: record.id,
      // Keys stored before names were made canonical on create may hold an alias.
      provider: canonicalProvider(record.provider),
      apiKey: typeof apiKey === 'string' ? apiKey : null,
      options: Object.freeze({ ...record.options, ...secretOptions }),
      unusable: null,
    };
    integration.unusable = unsendableField(integration);
    if (integration.unusable !== null) this.#logger.error('virtual_key_unusable', { virtual_key_id: record.id, reason: integration.unusable });
    return integration;
  }

  #install(record: VirtualKeyRecord, integration: StoredIntegration): void {
    this.#byId.set(record.id, integration);
    if (record.slug !== null) {
      this.#bySlug.set(record.slug, integration);
      this.#slugOf.set(record.id, record.slug);
    }
  }

  #remove(id: string): void {
    this.#byId.delete(id);
    const slug = this.#slugOf.get(id);
    if (slug !== undefined) {
      this.#slugOf.delete(id);
      if (this.#bySlug.get(slug) !== undefined) this.#bySlug.delete(slug);
    }
  }
}
