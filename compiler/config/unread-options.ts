// Options a cloud target reads only beside some others. Cloud A targets call one of two kinds of
// endpoint (docs/providers.md "Cloud A"): a resource's deployments, or a model endpoint when
// `clouda_deployment_type` is set, and each kind reads only its own options; within a kind, a
// `clouda_*` spelling wins over the plain one, an explicit deployment over the `deployments` list and
// the model name, and `custom_host` over the names a URL is built from. Cloud B signs in with its
// service account when it has one, and cloud C with its access keys: an `api_key` beside them is never
// sent. An option no target of its provider group reads is CFG_FIELD_WITHOUT_EFFECT
// (ignored-fields.ts). A request's headers only add options, so nothing said here turns read by a
// header. test/providers/unread-options.property.test.ts holds these rules to the adapters.
import { isPlainObject } from './query.ts';
import { NO_PROVIDER_GROUP, type ProviderGroup, providerGroupOf, startsProviderGroup } from './provider-group.ts';
import { PROVIDER_OPTIONS, providerEntry } from './providers.ts';

/** The options of resource deployments: a model endpoint never reads them. */
const DEPLOYMENT_OPTIONS = ['resource_name', 'clouda_resource_name', 'deployment_id', 'clouda_deployment_id', 'api_version', 'deployments', 'clouda_model_name'] as const;
/** The options of model endpoints: resource deployments never read them. */
const MODEL_ENDPOINT_OPTIONS = ['clouda_region', 'clouda_deployment_name', 'clouda_endpoint_name'] as const;
/** What a config node may set that the rules below read: every provider option, and the target's key. */
const JUDGED_FIELDS: ReadonlySet<string> = new Set([...PROVIDER_OPTIONS.map((option) => option.key), 'api_key']);
const MODEL_ENDPOINT_TYPES: readonly unknown[] = ['serverless', 'managed'];

/**
 * The options among `options` that a cloud A target with them (and with a `custom_host` of its own
 * when `customHost`) never reads, on any endpoint, each with why. `partial`: other options may still
 * be set beside these (a virtual key's, by the config that uses it), so only what no added option
 * can make read is said: a model endpoint's options without a `clouda_deployment_type`, which the
 * config may set, are not.
 */
export function cloudaUnread(options: Readonly<Record<string, unknown>>, customHost: boolean, partial = false): Map<string, string> {
  const unread = new Map<string, string>();
  const set = (key: string): boolean => options[key] !== undefined;
  const type = options.clouda_deployment_type;
  if (set('clouda_deployment_type')) {
    // Another value is an error of its own (CFG_INVALID_VALUE).
    if (!MODEL_ENDPOINT_TYPES.includes(type)) return unread;
    for (const key of DEPLOYMENT_OPTIONS) if (set(key)) unread.set(key, `it belongs to resource deployments, and "clouda_deployment_type" makes this target call a ${type as string} model endpoint`);
    if (!partial && type === 'serverless' && set('clouda_endpoint_name')) unread.set('clouda_endpoint_name', 'only a managed model endpoint is named by it, and this one is serverless');
    if (customHost) {
      const named = type === 'serverless' ? ['clouda_deployment_name', 'clouda_region'] : ['clouda_endpoint_name', 'clouda_region'];
      for (const key of named) if (set(key)) unread.set(key, `"custom_host" is the endpoint's URL, which "${key}" would otherwise name`);
    }
    return unread;
  }
  if (!partial) for (const key of MODEL_ENDPOINT_OPTIONS) if (set(key)) unread.set(key, 'only a model endpoint ("clouda_deployment_type") reads it, and this target calls a resource\'s deployments');
  if (customHost) {
    for (const key of ['resource_name', 'clouda_resource_name']) if (set(key)) unread.set(key, `"custom_host" is the resource's URL, which "${key}" would otherwise name`);
  } else if (set('clouda_resource_name') && set('resource_name')) {
    unread.set('resource_name', '"clouda_resource_name" is set too, and wins');
  }
  if (set('clouda_deployment_id') && set('deployment_id')) unread.set('deployment_id', '"clouda_deployment_id" is set too, and wins');
  if (set('clouda_api_version') && set('api_version')) unread.set('api_version', '"clouda_api_version" is set too, and wins');
  if (set('clouda_model_name') && (set('deployment_id') || set('clouda_deployment_id') || Array.isArray(options.deployments))) {
    unread.set('clouda_model_name', 'it names the deployment only when neither a deployment ID nor "deployments" does, and this target has one');
  }
  return unread;
}

/** The options of `family` among `options` (its provider options and `api_key`) that a target never reads, each with why; `partial` as for cloudaUnread. */
export function unreadOptions(family: string, options: Readonly<Record<string, unknown>>, customHost: boolean, partial = false): Map<string, string> {
  if (family === 'clouda') return cloudaUnread(options, customHost, partial);
  const unread = new Map<string, string>();
  if (options.api_key === undefined) return unread;
  if (family === 'cloudb' && options.cloudb_service_account_json !== undefined) {
    unread.set('api_key', 'the target signs in with "cloudb_service_account_json", and its token is sent instead');
  }
  if (family === 'cloudc' && (options.cloudc_access_key_id !== undefined || options.cloudc_secret_access_key !== undefined)) {
    unread.set('api_key', 'the target signs its requests with its access keys ("cloudc_access_key_id", "cloudc_secret_access_key") instead');
  }
  return unread;
}

export interface UnreadOption {
  pointer: string;
  message: string;
}

/** The options of a config's cloud targets that no target inheriting them reads. */
export function unreadOptionFields(config: unknown): UnreadOption[] {
  // Where each option is set → whether some target reading it was found, and why not otherwise.
  const verdicts = new Map<string, { read: boolean; why: string }>();
  const walk = (node: unknown, at: string, parentGroup: ProviderGroup, parentSet: ReadonlyMap<string, { pointer: string; value: unknown }>, parentHost: boolean): void => {
    if (!isPlainObject(node)) return;
    const group = providerGroupOf(node, parentGroup);
    const set = new Map(startsProviderGroup(node) ? [] : parentSet);
    for (const key in node) if (JUDGED_FIELDS.has(key)) set.set(key, { pointer: `${at}/${key}`, value: node[key] });
    const host = typeof node.custom_host === 'string' || parentHost;
    if (node.strategy !== undefined) {
      if (Array.isArray(node.targets)) node.targets.forEach((target, i) => walk(target, `${at}/targets/${i}`, group, set, host));
      return;
    }
    const family = group.provider === null ? undefined : providerEntry(group.provider)?.family;
    if (family === undefined || set.size === 0) return;
    const unread = unreadOptions(family, Object.fromEntries([...set].map(([key, { value }]) => [key, value])), host);
    for (const [key, { pointer }] of set) {
      const why = unread.get(key);
      const verdict = verdicts.get(pointer);
      if (verdict === undefined) verdicts.set(pointer, { read: why === undefined, why: why ?? '' });
      else if (why === undefined) verdict.read = true;
    }
  };
  walk(config, '', NO_PROVIDER_GROUP, new Map(), false);
  return [...verdicts].filter(([, verdict]) => !verdict.read).map(([pointer, { why }]) => ({ pointer, message: `"${pointer.slice(pointer.lastIndexOf('/') + 1)}" is never read here: ${why}.` }));
}
