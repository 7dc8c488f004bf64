// What the gateway knows about one provider family: where it lives and how it wants its credential.
// Request/response transforms for non-vendor-shaped APIs join this interface with the providers issue.
import type { PlanLeaf } from '../../compiler/config/route-plan.ts';

export interface ProviderAdapter {
  /** Canonical name, echoed in x-gateway-provider. */
  name: string;
  /** Base URL including the API version segment (e.g. `…/v1`); `custom_host` replaces it. */
  baseUrl: string;
  /** Headers carrying the credential (and provider options such as organization). */
  authHeaders(apiKey: string, leaf: PlanLeaf): Record<string, string>;
}
