// Wires the data plane into a started gateway: providers, transport, circuit breakers, the config
// resolver (saved configs from --configs DIR compiled at start), and the handlers.
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { checkConfigSource, type ConfigError, type GuardrailLookup } from '../../compiler/config/index.ts';
import { fileGuardrails, type GuardrailFile, readGuardrailFolder } from '../../compiler/config/guardrail-files.ts';
import { CircuitBreakers, MemoryBreakerStore } from '../router/breaker.ts';
import { BREAKER_TARGET_SEPARATOR } from '../router/router-runtime.ts';
import type { GatewaySetup } from '../server/start.ts';
import { defaultProviders, type ProviderRegistry } from '../providers/registry.ts';
import { ConfigResolver } from './config-resolver.ts';
import { createInferenceHandler, INFERENCE_HANDLERS } from './handlers.ts';
import { inferenceSettingsFromEnv, type InferenceSettings } from './settings.ts';
import { InferenceTransport } from './transport.ts';
import { defaultCheckTools, defaultServices } from './routers.ts';
import type { TokenUsage } from '../core/request-record.ts';
import { ModelCatalog } from '../telemetry/model-catalog.ts';
import { GatewayMetrics } from '../telemetry/metrics.ts';
import { upstreamPoolCount } from '../upstream/pools.ts';
import { type TelemetrySettings, telemetrySettingsFromEnv } from '../telemetry/settings.ts';
import { HostPolicy } from '../providers/host-policy.ts';
import { configurePools, poolSettingsFromEnv, setConnectLookup } from '../upstream/pools.ts';

export interface InferenceOptions {
  settings?: InferenceSettings;
  /** Request-log and pricing settings; read from the environment when absent. */
  telemetry?: TelemetrySettings;
  providers?: ProviderRegistry;
}

export class InvalidSavedConfigsError extends Error {
  readonly errors: ConfigError[];
  constructor(errors: ConfigError[]) {
    super(`${new Set(errors.map((e) => e.configId)).size} saved config(s) are invalid:\n${errors.map((e) => `  ${e.configId}.json:${e.line}:${e.column} ${e.code} ${e.pointer || '/'}: ${e.message}`).join('\n')}`);
    this.errors = errors;
  }
}

export async function setupInference(setup: GatewaySetup, options: InferenceOptions = {}): Promise<ConfigResolver> {
  const settings = options.settings ?? inferenceSettingsFromEnv();
  const hostPolicy = HostPolicy.fromEnv();
  setConnectLookup(hostPolicy.connectLookup);
  configurePools(poolSettingsFromEnv());
  const transport = new InferenceTransport(options.providers ?? defaultProviders(), undefined, { hostPolicy });
  const breakers = new CircuitBreakers(new MemoryBreakerStore(), Date.now);
  const telemetry = options.telemetry ?? telemetrySettingsFromEnv();
  const pricing = ModelCatalog.loadWithOverlay(telemetry.catalogPath, telemetry.pricingFile);
  const services = {
    ...defaultServices(),
    logger: setup.logger,
    costOf: (_provider: string, model: string | null, usage: TokenUsage) => (model === null ? null : pricing.cost(model, usage)),
    pricesSpokenMinutes: (model: string | null) => model !== null && pricing.pricesSpokenMinutes(model),
    logBodyBytes: telemetry.logBodies ? telemetry.logBodyMaxBytes : 0,
    metrics: telemetry.metrics ? new GatewayMetrics({ circuits: () => circuitsOf(breakers), upstreamPools: upstreamPoolCount }) : null,
    recording: telemetry.requestLog || telemetry.metrics || setup.tracing !== null,
    tracing: setup.tracing !== null,
    checkTools: defaultCheckTools(hostPolicy),
    resolveTarget: transport.resolveTarget,
  };
  const resolver = new ConfigResolver({ transport, breakers, settings, services });
  transport.useTurnMemory(() => resolver.services.turns);
  if (setup.configsDir !== null) {
    // Without a control plane, file guardrails are all a config can name.
    const files = setup.guardrailsDir === null ? [] : await loadGuardrailFiles(setup.guardrailsDir);
    const guardrails = setup.guardrailsDir === null ? null : fileGuardrails(files, setup.guardrailsDir);
    resolver.useGuardrails(guardrails);
    await loadSavedConfigs(resolver, setup.configsDir, guardrails);
  }
  const handler = createInferenceHandler(resolver);
  for (const name of INFERENCE_HANDLERS) setup.gateway.registerHandler(name, handler);
  return resolver;
}

/** The guardrails folder's files; refuses to start with any invalid one, listing every error. */
export async function loadGuardrailFiles(dir: string): Promise<GuardrailFile[]> {
  const { files, errors } = await readGuardrailFolder(dir);
  if (errors.length > 0) throw new InvalidSavedConfigsError(errors.map((e) => ({ ...e, configId: `guardrails/${e.configId ?? ''}` })));
  return files;
}

/** Compiles every `*.json` in `dir`; refuses to start with any invalid one, listing every error. */
export async function loadSavedConfigs(resolver: ConfigResolver, dir: string, guardrails: GuardrailLookup | null = null): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  const errors: ConfigError[] = [];
  const ids: string[] = [];
  for (const file of files) {
    const id = basename(file, '.json');
    const result = checkConfigSource(await readFile(join(dir, file), 'utf8'), id, { guardrails, secrets: { env: process.env } });
    if (!result.ok) {
      errors.push(...result.errors);
      continue;
    }
    resolver.setSaved(result.plan);
    ids.push(id);
  }
  if (errors.length > 0) throw new InvalidSavedConfigsError(errors);
  return ids;
}

/**
 * Circuits that are not closed, by the config id and target path their key joins. A target that reads
 * the routing headers has a circuit per target they name (breakerKeyFor); its series says open when
 * any of them is, else half-open.
 */
function circuitsOf(breakers: CircuitBreakers): Iterable<{ configId: string; target: string; state: 'open' | 'half_open' }> {
  const byTarget = new Map<string, { configId: string; target: string; state: 'open' | 'half_open' }>();
  for (const { key, state } of breakers.notClosed()) {
    const named = key.indexOf(BREAKER_TARGET_SEPARATOR);
    const leaf = named < 0 ? key : key.slice(0, named);
    const split = leaf.indexOf('\u0000');
    if (byTarget.get(leaf)?.state !== 'open') byTarget.set(leaf, { configId: leaf.slice(0, split), target: leaf.slice(split + 1), state });
  }
  return byTarget.values();
}
