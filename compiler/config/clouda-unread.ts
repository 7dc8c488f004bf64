// Cloud A targets call one of two kinds of endpoint (docs/providers.md "Cloud A"): a resource's
// deployments, or a model endpoint when `clouda_deployment_type` is set, and each kind reads only its
// own options; within a kind, a `clouda_*` spelling wins over the plain one, an explicit deployment
// over the `deployments` list and the model name, and `custom_host` over the names a URL is built
// from. An option no target of its provider group reads is CFG_FIELD_WITHOUT_EFFECT (ignored-fields.ts).
// A request's headers only add options, so nothing said here turns read by a header.
// test/providers/clouda-unread.property.test.ts holds these rules to the adapter.
import { isPlainObject } from './query.ts';
import { NO_PROVIDER_GROUP, type ProviderGroup, providerGroupOf } from './provider-group.ts';
import { PROVIDER_OPTIONS, providerEntry } from './providers.ts';

/** The options of resource deployments: a model endpoint never reads them. */
const DEPLOYMENT_OPTIONS = ['resource_name', 'clouda_resource_name', 'deployment_id', 'clouda_deployment_id', 'api_version', 'deployments', 'clouda_model_name'] as const;
/** The options of model endpoints: resource deployments never read them. */
const MODEL_ENDPOINT_OPTIONS = ['clouda_region', 'clouda_deployment_name', 'clouda_endpoint_name'] as const;
const CLOUDA_OPTIONS: ReadonlySet<string> = new Set(PROVIDER_OPTIONS.filter((option) => option.family === 'clouda').map((option) => option.key));
const MODEL_ENDPOINT_TYPES: readonly unknown[] = ['serverless', 'managed'];

/**
 * The options among `options` that a cloud A target with them (and with a `custom_host` of its own
 * when `customHost`) never reads, on any endpoint, each with why.
 */
export function cloudaUnread(options: Readonly<Record<string, unknown>>, customHost: boolean): Map<string, string> {
  const unread = new Map<string, string>();
  const set = (key: string): boolean => options[key] !== undefined;
  const type = options.clouda_deployment_type;
  if (set('clouda_deployment_type')) {
    // Another value is an error of its own (CFG_INVALID_VALUE).
    if (!MODEL_ENDPOINT_TYPES.includes(type)) return unread;
    for (const key of DEPLOYMENT_OPTIONS) if (set(key)) unread.set(key, `it belongs to resource deployments, and "clouda_deployment_type" makes this target call a ${type as string} model endpoint`);
    if (type === 'serverless' && set('clouda_endpoint_name')) unread.set('clouda_endpoint_name', 'only a managed model endpoint is named by it, and this one is serverless');
    if (customHost) {
      const named = type === 'serverless' ? ['clouda_deployment_name', 'clouda_region'] : ['clouda_endpoint_name', 'clouda_region'];
      for (const key of named) if (set(key)) unread.set(key, `"custom_host" is the endpoint's URL, which "${key}" would otherwise name`);
    }
    return unread;
  }
  for (const key of MODEL_ENDPOINT_OPTIONS) if (set(key)) unread.set(key, 'only a model endpoint ("clouda_deployment_type") reads it, and this target calls a resource\'s deployments');
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

export interface UnreadOption {
  pointer: string;
  message: string;
}

/** The cloud A options of a config that no target inheriting them reads. */
export function cloudaUnreadFields(config: unknown): UnreadOption[] {
  // Where each option is set → whether some target reading it was found, and why not otherwise.
  const verdicts = new Map<string, { read: boolean; why: string }>();
  const walk = (node: unknown, at: string, parentGroup: ProviderGroup, parentSet: ReadonlyMap<string, { pointer: string; value: unknown }>, parentHost: boolean): void => {
    if (!isPlainObject(node)) return;
    const group = providerGroupOf(node, parentGroup);
    // Naming a provider or a virtual key starts a group: the parent's options stay with the parent's provider.
    const startsGroup = node.provider !== undefined || node.virtual_key !== undefined;
    const set = new Map(startsGroup ? [] : parentSet);
    for (const key in node) if (CLOUDA_OPTIONS.has(key)) set.set(key, { pointer: `${at}/${key}`, value: node[key] });
    const host = typeof node.custom_host === 'string' || parentHost;
    if (node.strategy !== undefined) {
      if (Array.isArray(node.targets)) node.targets.forEach((target, i) => walk(target, `${at}/targets/${i}`, group, set, host));
      return;
    }
    if (group.provider === null || providerEntry(group.provider)?.family !== 'clouda' || set.size === 0) return;
    const unread = cloudaUnread(Object.fromEntries([...set].map(([key, { value }]) => [key, value])), host);
    for (const [key, { pointer }] of set) {
      const why = unread.get(key);
      const verdict = verdicts.get(pointer);
      if (verdict === undefined) verdicts.set(pointer, { read: why === undefined, why: why ?? '' });
      else if (why === undefined) verdict.read = true;
    }
  };
  walk(config, '', NO_PROVIDER_GROUP, new Map(), false);
  return [...verdicts].filter(([, verdict]) => !verdict.read).map(([pointer, { why }]) => ({ pointer, message: `Cloud A never reads "${pointer.slice(pointer.lastIndexOf('/') + 1)}" here: ${why}.` }));
}
