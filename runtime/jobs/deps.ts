// What the files, batches, fine-tuning and responses handlers share (built once by setupJobs).
import type { ConfigResolver } from '../inference/config-resolver.ts';
import type { StoredCredentials } from '../providers/stored-credentials.ts';
import type { GatewayLogger } from '../core/log.ts';
import type { RouteSpec } from '../server/match.ts';
import type { GatewayStore } from '../store/open-store.ts';
import type { BatchRunner } from './batch-runner.ts';
import type { ProviderContract } from './contract.ts';
import type { ModelCatalog } from '../telemetry/model-catalog.ts';
import type { RouteSealer } from './route-headers.ts';
import type { JobSettings } from './settings.ts';

export interface JobDeps {
  store: GatewayStore;
  resolver: ConfigResolver;
  /** Virtual keys and provider slugs (to know which provider a slug or key names); null when none are loaded. */
  credentials(): StoredCredentials | null;
  settings: JobSettings;
  logger: GatewayLogger;
  runner: BatchRunner;
  sealer: RouteSealer;
  contract: ProviderContract;
  catalog: ModelCatalog;
  routes: readonly RouteSpec[];
  /** Whether the store answered the change feed's last poll (false during an outage). */
  storeAnswers(): boolean;
}
