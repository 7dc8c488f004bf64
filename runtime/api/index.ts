// Wires the control plane into a started gateway: saved configs (files from --configs DIR and the
// API), named guardrails (files and the API), prompt templates, policies and the keys admin API. In-memory copies (routers, compiled
// prompts, policies) load at start and follow the store's change feed, so a write through any
// process reaches every process; the request path never waits on the database.
import type { ConfigResolver } from '../inference/config-resolver.ts';
import { RECORD_KINDS } from '../store/record-kinds.ts';
import type { Handler } from '../server/server.ts';
import type { GatewaySetup } from '../server/start.ts';
import { ConfigCatalog } from './configs/config-catalog.ts';
import { loadConfigFiles } from './configs/config-files.ts';
import { FolderReload } from './configs/folder-reload.ts';
import { configHandlers } from './configs/handlers.ts';
import { apiKeyHandlers } from './keys/handlers.ts';
import { PolicyCatalog } from './policies/policy-catalog.ts';
import { setupHotState } from './hot-state.ts';
import { cacheHandlers } from './cache/handlers.ts';
import { positionIn, SEMANTIC_CACHE_NEEDS_SERVER, semanticCacheMessage, semanticCachePointers } from '../../compiler/config/semantic-cache.ts';
import { rateLimitHandlers } from './policies/rate-limits.ts';
import { usageLimitHandlers } from './policies/usage-limits.ts';
import { promptHandlers } from './prompts/handlers.ts';
import { GuardrailCatalog } from './guardrails/guardrail-catalog.ts';
import { guardrailHandlers } from './guardrails/handlers.ts';
import { loadGuardrailFiles } from '../inference/index.ts';
import { PromptCatalog } from './prompts/prompt-catalog.ts';

export interface ControlPlane {
  configs: ConfigCatalog;
  guardrails: GuardrailCatalog;
  /** Reloads the --configs and guardrails folders; null without a --configs folder. */
  folders: FolderReload | null;
  prompts: PromptCatalog;
  policies: PolicyCatalog;
}

/**
 * Call with the resolver setupInference returned, after setupInference ran *without* a configs
 * folder: the control plane loads `setup.configsDir` itself, so it knows which IDs are files.
 */
export async function setupControlPlane(setup: GatewaySetup, resolver: ConfigResolver): Promise<ControlPlane> {
  const { store, gateway, logger } = setup;
  // Before any saved config's router is built: the routers' limit and cache stages hold the services.
  const { limits, cache, purgeCache } = await setupHotState(setup, resolver);
  // Guardrails before configs: a config's guardrail names resolve when it compiles.
  const guardrails = new GuardrailCatalog(store.guardrails);
  if (setup.guardrailsDir !== null) guardrails.installFiles(await loadGuardrailFiles(setup.guardrailsDir));
  await store.changes.watch(RECORD_KINDS.guardrails, guardrails.onChange);
  await guardrails.loadAll();
  resolver.useGuardrails(guardrails);
  const configs = new ConfigCatalog(resolver, store.configs, logger, guardrails);
  if (setup.configsDir !== null) configs.installFiles(await loadConfigFiles(setup.configsDir, guardrails));
  guardrails.onChanged((names) => {
    resolver.useGuardrails(guardrails);
    void configs.recompileNaming(names).catch((error: unknown) => logger.error('config_recompile_failed', { guardrails: names, error: (error as Error).message }));
  });
  // The folders on disk: reloaded on SIGHUP, and watched unless the setup says not to.
  const folders = setup.configsDir === null ? null : new FolderReload({ configsDir: setup.configsDir, guardrailsDir: setup.guardrailsDir, configs, guardrails, logger, semanticCache: cache.semantic !== null });
  if (folders !== null) setup.healthDetail('configs', () => folders.revision());
  const prompts = new PromptCatalog(store.prompts, logger);
  const policies = new PolicyCatalog(store, (catalog) => limits.use(catalog.activeRateLimits(), catalog.usageLimits()));

  // Watch first, then load: a write landing in between is delivered again, and reloads are idempotent.
  await store.changes.watch(RECORD_KINDS.configs, configs.onChange);
  await store.changes.watch(RECORD_KINDS.prompts, prompts.onChange);
  await store.changes.watch(RECORD_KINDS.rateLimits, policies.onRateLimitsChange);
  await store.changes.watch(RECORD_KINDS.usageLimits, policies.onUsageLimitsChange);
  await configs.loadAll();
  await prompts.loadAll();
  await policies.loadAll();
  if (cache.semantic === null) refuseSemanticConfigs(configs, resolver.savedIds());

  resolver.services.prompts.use(prompts);

  const handlers: Record<string, Handler> = {
    ...apiKeyHandlers(store),
    ...configHandlers(store, configs, cache.semantic !== null),
    ...promptHandlers(store, configs),
    ...guardrailHandlers(store, guardrails, configs),
    ...rateLimitHandlers(store, limits),
    ...usageLimitHandlers(store, limits),
    ...cacheHandlers(purgeCache),
  };
  // Only what the route table serves (tests may run with a smaller table).
  const served = new Set(gateway.routes.routes.map((route) => route.handler));
  for (const [name, handler] of Object.entries(handlers)) if (served.has(name)) gateway.registerHandler(name, handler);
  return { configs, guardrails, folders, prompts, policies };
}

/** A saved config with a semantic cache this gateway cannot run stops the start (a located error per cache), never a silent simple cache. */
function refuseSemanticConfigs(configs: ConfigCatalog, ids: readonly string[]): void {
  const problems: string[] = [];
  for (const id of ids) {
    const plan = configs.planOf(id);
    if (plan === null) continue;
    for (const pointer of semanticCachePointers(plan)) {
      const file = configs.file(id);
      const where = file === undefined ? `config "${id}" (saved through the API)` : `${file.path}:${positionLabel(file.source, pointer)}`;
      problems.push(`  ${where}  ${SEMANTIC_CACHE_NEEDS_SERVER}  ${pointer}\n    ${semanticCacheMessage()}`);
    }
  }
  if (problems.length > 0) throw new Error(`${problems.length} semantic cache(s) in saved configs cannot run:\n${problems.join('\n')}`);
}

function positionLabel(source: string, pointer: string): string {
  const { line, column } = positionIn(source, pointer);
  return `${line}:${column}`;
}
