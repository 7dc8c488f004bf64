// Named guardrails stored over the API (`/v1/guardrails`). Guardrails from the guardrails folder are
// files and never stored; on an ID clash the file wins, as for configs.
import type { NamedGuardrail } from '../../compiler/config/guardrail-lookup.ts';
import type { Page, PageRequest } from './page.ts';

export interface StoredGuardrailRecord {
  id: string;
  name: string | null;
  /** The guardrail as accepted (it passed the compiler's checks when it was saved). */
  guardrail: NamedGuardrail;
  /** 1 at creation, +1 on every update. */
  version: number;
  createdAt: string;
  lastUpdatedAt: string;
}

export interface GuardrailStore {
  /** Throws UniqueViolationError when the ID is taken. */
  create(input: { id: string; name: string | null; guardrail: NamedGuardrail }): Promise<StoredGuardrailRecord>;
  get(id: string): Promise<StoredGuardrailRecord | null>;
  /** Oldest first; `excludeIds` leaves out IDs the caller shows from elsewhere (file guardrails). */
  list(page: PageRequest, options?: { excludeIds?: readonly string[] }): Promise<Page<StoredGuardrailRecord>>;
  /** Replaces the guardrail (and the name, when given); null when none has that ID. */
  update(id: string, input: { name?: string | null; guardrail: NamedGuardrail }): Promise<StoredGuardrailRecord | null>;
  delete(id: string): Promise<boolean>;
}
