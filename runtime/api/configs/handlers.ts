// `/v1/configs`: saved configs over the API. Saving compiles through the same check → plan pipeline
// as `gateway compile` (400 `invalid_config` with every compile error otherwise); after the write the
// change feed installs the new router here at once and in every other process on its next poll.
import { randomBytes } from 'node:crypto';
import { type ConfigError, findDuplicateKeys, type RoutePlan } from '../../../compiler/config/index.ts';
import { redactCredentials } from '../../../compiler/config/secrets.ts';
import { semanticCacheErrors } from '../../../compiler/config/semantic-cache.ts';
import { withoutEffect } from '../../../compiler/config/without-effect.ts';
import { parsePromptRef } from '../prompts/prompt-ref.ts';
import type { PlanNode } from '../../core/plan.ts';
import { refusedWithoutLookup } from '../../providers/host-policy.ts';
import type { ConfigCreate, ConfigSimulate, ConfigUpdate, SavedConfig, SavedConfigList, Simulation } from '../../../generated/types.ts';
import { simulate } from '../../simulate/simulate.ts';
import { simulationInput } from '../../simulate/simulation-request.ts';
import type { SavedConfigRecord } from '../../store/config-store.ts';
import type { GatewayStore } from '../../store/open-store.ts';
import { UniqueViolationError } from '../../store/sql/sql-database.ts';
import type { RequestContext } from '../../server/context.ts';
import { GatewayError } from '../../core/errors.ts';
import type { Handler } from '../../server/server.ts';
import { deletedBody, filesThenStored, listBody, notFound, pageOf, pathParam, requireAdmin, sendOk } from '../http.ts';
import type { ConfigCatalog } from './config-catalog.ts';
import { leavesOf } from '../../core/plan.ts';
import { optionOfOtherFamily } from '../../../compiler/config/providers.ts';
import type { VirtualKeyRecord } from '../../store/virtual-key-store.ts';
import type { FileConfig } from './config-files.ts';

/** `semanticCache`: whether this gateway runs semantic caches; without, a config with one is refused when saved. */
export function configHandlers(store: GatewayStore, catalog: ConfigCatalog, semanticCache: boolean): Record<string, Handler> {
  function notFromFile(id: string): void {
    if (catalog.file(id) !== undefined) {
      throw new GatewayError('config_read_only', `The config "${id}" comes from the --configs folder, which wins over the API; change the file instead.`, 'configId');
    }
  }

  return {
    'configs.create': async (ctx) => {
      requireAdmin(ctx);
      const body = (await ctx.json()) as ConfigCreate;
      const id = body.id ?? `cfg-${randomBytes(8).toString('hex')}`;
      if (catalog.file(id) !== undefined) {
        throw new GatewayError('resource_already_exists', `The ID "${id}" belongs to a config from the --configs folder.`, '/id');
      }
      await refuseDanglingReferences(store, compileOrThrow(catalog, body.config, id, semanticCache, await duplicatesIn(ctx)));
      let record: SavedConfigRecord;
      try {
        record = await store.configs.create({ id, name: body.name ?? null, config: body.config });
      } catch (error) {
        if (error instanceof UniqueViolationError) throw new GatewayError('resource_already_exists', `A config with the ID "${id}" already exists; PUT /v1/configs/${id} replaces it.`, '/id');
        throw error;
      }
      await store.changes.refresh();
      sendOk(ctx, apiConfigWire(record));
    },

    'configs.list': async (ctx) => {
      requireAdmin(ctx);
      const page = await filesThenStored(catalog.files(), pageOf(ctx.query), (p, options) => store.configs.list(p, options));
      sendOk(ctx, listBody([...page.files.map(fileConfigWire), ...page.stored.map(apiConfigWire)], page.total) satisfies SavedConfigList);
    },

    'configs.retrieve': async (ctx) => {
      requireAdmin(ctx);
      const id = pathParam(ctx, 'configId');
      const file = catalog.file(id);
      if (file !== undefined) return sendOk(ctx, fileConfigWire(file));
      const record = await store.configs.get(id);
      if (record === null) throw notFound('config', id, 'configId');
      sendOk(ctx, apiConfigWire(record));
    },

    'configs.update': async (ctx) => {
      requireAdmin(ctx);
      const id = pathParam(ctx, 'configId');
      notFromFile(id);
      const body = (await ctx.json()) as ConfigUpdate;
      await refuseDanglingReferences(store, compileOrThrow(catalog, body.config, id, semanticCache, await duplicatesIn(ctx)));
      const record = await store.configs.update(id, { config: body.config, ...(body.name === undefined ? {} : { name: body.name }) });
      if (record === null) throw notFound('config', id, 'configId');
      await store.changes.refresh();
      sendOk(ctx, apiConfigWire(record));
    },

    'configs.simulate': async (ctx) => {
      requireAdmin(ctx);
      const id = pathParam(ctx, 'configId');
      const plan = catalog.planOf(id);
      if (plan === null) throw notFound('config', id, 'configId');
      const body = (await ctx.json()) as ConfigSimulate;
      sendOk(ctx, (await simulate(plan, simulationInput(plan, body), catalog.routing)) satisfies Simulation);
    },

    'configs.delete': async (ctx: RequestContext) => {
      requireAdmin(ctx);
      const id = pathParam(ctx, 'configId');
      notFromFile(id);
      if (!(await store.configs.delete(id))) throw notFound('config', id, 'configId');
      await store.changes.refresh();
      sendOk(ctx, deletedBody(id, 'config'));
    },
  };
}

/**
 * A saved config whose targets render a prompt, or call a virtual key or `@slug`, that is not stored
 * would answer 400 on every request: refused when saved. Files are not held to this (what they name
 * may be saved after they are deployed).
 */
async function refuseDanglingReferences(store: GatewayStore, plan: RoutePlan): Promise<void> {
  let slugs: Map<string, VirtualKeyRecord> | null = null;
  for (const leaf of leavesOf(plan.root)) {
    if (leaf.promptId !== null) {
      const { id, version } = parsePromptRef(leaf.promptId);
      if ((await store.prompts.get(id, version)) === null) {
        throw new GatewayError('unknown_prompt_id', `The config renders the prompt "${leaf.promptId}" (${leaf.path}), and no such prompt${version === undefined ? '' : ' version'} is stored: save the prompt first (POST /v1/prompts).`, '/config');
      }
    }
    if (leaf.virtualKey !== null) {
      const key = await store.virtualKeys.get(leaf.virtualKey);
      if (key === null) throw new GatewayError('unknown_virtual_key', `The config calls the virtual key "${leaf.virtualKey}" (${leaf.path}), and no such key is stored: create it first (POST /v1/virtual-keys).`, '/config');
      const other = optionOfOtherFamily(leaf.providerOptions, key.provider);
      if (other !== null) throw new GatewayError('invalid_provider_option', `The config sets "${other.key}" beside the virtual key "${leaf.virtualKey}" (${leaf.path}), which calls ${key.provider}; only ${other.family} providers read it, so it would have no effect.`, '/config');
    }
    if (leaf.provider !== null && leaf.provider.startsWith('@')) {
      slugs ??= new Map((await store.virtualKeys.loadAll()).flatMap((key) => (key.slug === null ? [] : [[key.slug, key] as const])));
      const key = slugs.get(leaf.provider.slice(1));
      if (key === undefined) {
        throw new GatewayError('unknown_provider_slug', `The config calls "${leaf.provider}" (${leaf.path}), and no virtual key has that slug: create one first (POST /v1/virtual-keys).`, '/config');
      }
      const other = optionOfOtherFamily(leaf.providerOptions, key.provider);
      if (other !== null) throw new GatewayError('invalid_provider_option', `The config sets "${other.key}" beside "${leaf.provider}" (${leaf.path}), which calls ${key.provider}; only ${other.family} providers read it, so it would have no effect.`, '/config');
    }
  }
}

/** A saved config naming a metadata address or name as custom_host is refused when saved, not only when used. */
function refuseMetadataHosts(node: PlanNode): void {
  if (node.kind === 'strategy') {
    node.targets.forEach(refuseMetadataHosts);
    return;
  }
  if (node.customHost === null) return;
  let url: URL;
  try {
    url = new URL(node.customHost);
  } catch {
    return;
  }
  const refused = refusedWithoutLookup(url);
  if (refused !== null) throw new GatewayError('custom_host_not_allowed', `The custom host ${url.host} (${node.path}) is not allowed: ${refused}.`, '/config');
}

/** Keys the request body's `config` repeats (JSON.parse keeps the last, silently): refused as `gateway compile` refuses them. */
async function duplicatesIn(ctx: RequestContext): Promise<ConfigError[]> {
  return findDuplicateKeys((await ctx.readBody()).toString('utf8'), '/config');
}

/** The config's plan; 400 `invalid_config` carrying every compile error (code, pointer into `config`, message, hint). */
function compileOrThrow(catalog: ConfigCatalog, config: Record<string, unknown>, id: string, semanticCache: boolean, duplicates: readonly ConfigError[] = []): RoutePlan {
  const checked = catalog.check(config, id);
  // Saved, it would answer 400 on every request and stop this gateway's next start (docs/cache.md).
  // What `gateway compile` warns has no effect is refused here: an API save has no review after it.
  const refused = checked.ok ? [...(semanticCache ? [] : semanticCacheErrors(checked.plan)), ...withoutEffect(config)] : [];
  if (checked.ok && duplicates.length === 0 && refused.length === 0) {
    refuseMetadataHosts(checked.plan.root);
    return checked.plan;
  }
  const result = { errors: [...duplicates, ...(checked.ok ? refused : checked.errors)] };
  const first = result.errors[0];
  const more = result.errors.length > 1 ? ` (and ${result.errors.length - 1} more)` : '';
  throw new GatewayError('invalid_config', `The config is not valid: ${first.message}${more}`, '/config', {
    errors: result.errors.map(({ code, pointer, message, hint }) => ({ code, pointer, message, ...(hint ? { hint } : {}) })),
  });
}

export function apiConfigWire(record: SavedConfigRecord): SavedConfig {
  return {
    object: 'config',
    id: record.id,
    name: record.name,
    source: 'api',
    // Credentials written in the config are shown redacted: an echo must never hand a key back.
    config: redactCredentials(record.config),
    version: record.version,
    created_at: record.createdAt,
    last_updated_at: record.lastUpdatedAt,
  };
}

function fileConfigWire(file: FileConfig): SavedConfig {
  return { object: 'config', id: file.id, name: null, source: 'file', config: redactCredentials(file.config), version: 1, created_at: file.modifiedAt, last_updated_at: file.modifiedAt };
}
