// Responses the gateway emulated over chat completions (docs/jobs.md) and stored: what GET
// /v1/responses/{id} answers, and what previous_response_id continues from.

export interface StoredResponseRecord {
  id: string;
  organisationId: string;
  createdIso: string;
  /** The response object as it was answered. */
  body: Record<string, unknown>;
  /** The chat messages this response continued (instructions excluded) followed by its answer. */
  conversation: unknown[];
}

export interface ResponseStore {
  create(input: Omit<StoredResponseRecord, 'createdIso'>): Promise<StoredResponseRecord>;
  /** Bytes the organisation's stored responses take (their bodies' and conversations' JSON text). */
  storedBytes(organisationId: string): Promise<number>;
  /** Null when no response of this organisation has the ID. */
  get(organisationId: string, id: string): Promise<StoredResponseRecord | null>;
  /** Deletes the organisation's response with this ID; false when it has none. */
  delete(organisationId: string, id: string): Promise<boolean>;
  /** Deletes at most `limit` of the responses created before `cutoffIso` (oldest first); how many it deleted. */
  deleteOlderThan(cutoffIso: string, limit: number): Promise<number>;
}
