// What the transport asks of the stored credentials (virtual keys and provider slugs). They are
// held in memory by their owner (runtime/api/virtual-keys) and never read from the database per request.

/** One stored integration: the provider it calls, its credential and its default options. */
export interface StoredIntegration {
  /** The virtual key's ID (also when the integration is named by its slug). */
  id: string;
  /** The provider's canonical name. */
  provider: string;
  apiKey: string | null;
  /** Provider options under config field names (`clouda_region`, `cloudb_service_account_json`, …). */
  options: Readonly<Record<string, unknown>>;
  /**
   * Why the integration cannot be called, found once when it was loaded: a credential or option
   * stored before the API refused values no HTTP header can carry (a trailing newline). Null when usable.
   */
  unusable: string | null;
}

export interface StoredCredentials {
  /** The integration behind a virtual key's ID; undefined when none is stored. */
  virtualKey(id: string): StoredIntegration | undefined;
  /** The integration behind a slug (without its `@`); undefined when none is stored. */
  slug(name: string): StoredIntegration | undefined;
}
