// Wires files, batches, fine-tuning and stored responses into a started gateway: the handlers the
// route table serves, the batch runner (started now, stopped before the store closes), and the
// change-feed watch that tells a running batch it was cancelled through another process.
import { loadMasterKey } from '../store/master-key.ts';
import { batchHandlers } from './batches/handlers.ts';
import { fileHandlers } from './files/handlers.ts';
import { fineTuningHandlers } from './fine-tuning/handlers.ts';
import { responseHandlers } from './responses/handlers.ts';
import type { ConfigResolver } from '../inference/config-resolver.ts';
import type { StoredCredentials } from '../providers/stored-credentials.ts';
import type { Handler } from '../server/server.ts';
import type { GatewaySetup } from '../server/start.ts';
import { RECORD_KINDS } from '../store/record-kinds.ts';
import { BatchRunner } from '../jobs/batch-runner.ts';
import { ProviderContract } from '../jobs/contract.ts';
import type { JobDeps } from '../jobs/deps.ts';
import { BUILT_IN_CATALOG, ModelCatalog } from '../telemetry/model-catalog.ts';
import { RouteSealer } from '../jobs/route-headers.ts';
import { jobSettingsFromEnv, type JobSettings } from '../jobs/settings.ts';
import { ResponseRetention } from '../jobs/response-retention.ts';

export interface JobsOptions {
  settings?: JobSettings;
  /** Virtual keys and provider slugs, to tell which provider a slug or key names (runtime/api/virtual-keys). */
  credentials?: () => StoredCredentials | null;
  catalog?: ModelCatalog;
  /** Where GATEWAY_MASTER_KEY is read from (the key that seals a batch's routing headers). */
  env?: NodeJS.ProcessEnv;
}

export interface Jobs {
  deps: JobDeps;
  runner: BatchRunner;
  contract: ProviderContract;
}

export async function setupJobs(setup: GatewaySetup, resolver: ConfigResolver, options: JobsOptions = {}): Promise<Jobs> {
  const { gateway, store, logger } = setup;
  const settings = options.settings ?? jobSettingsFromEnv(options.env);
  const catalog = options.catalog ?? ModelCatalog.load(settings.modelCatalogPath ?? BUILT_IN_CATALOG);
  const sealer = new RouteSealer(await loadMasterKey(setup.dataDir, options.env));
  const routes = gateway.routes.routes;
  const runner = new BatchRunner({ batches: store.batches, files: store.files, resolver, routes, sealer, logger, settings, onRecord: setup.recordFinished });
  const contract = new ProviderContract(settings.contractMode, logger);
  const storeUp = setup.backends.get('store');
  const deps: JobDeps = { store, resolver, credentials: options.credentials ?? (() => null), settings, logger, runner, sealer, contract, catalog, routes, storeAnswers: () => storeUp?.() ?? true };

  const handlers: Record<string, Handler> = {
    ...fileHandlers(deps),
    ...batchHandlers(deps),
    ...fineTuningHandlers(deps),
    ...responseHandlers(deps),
  };
  const served = new Set(routes.map((route) => route.handler));
  for (const [name, handler] of Object.entries(handlers)) if (served.has(name)) gateway.registerHandler(name, handler);

  // A cancel accepted by another process reaches the runner here, within one poll.
  await store.changes.watch(RECORD_KINDS.batches, (change) => {
    runner.changed(change.all ? runner.runningIds : change.ids);
  });
  // The runner must stop (and give its leases back) before the store closes.
  setup.onClose(() => runner.stop());
  runner.start();
  const retention = new ResponseRetention(store.responses, settings.responseRetentionDays, logger);
  setup.onClose(async () => retention.stop());
  retention.start();
  return { deps, runner, contract };
}
