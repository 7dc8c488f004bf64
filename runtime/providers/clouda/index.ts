// Cloud family A (`clouda`, shaped like a cloud-hosted copy of the vendor's API). Two URL schemes:
// - resource deployments: `https://{resource}.openai.azure.com/openai/deployments/{id}/{endpoint}?api-version=…`
//   from `resource_name` / `deployment_id` / `api_version`, or `deployments` with an `alias` matched
//   against the request's model (`is_default` otherwise), or the `clouda_resource_name` /
//   `clouda_deployment_id` / `clouda_model_name` set (also the x-gateway-clouda-* headers of §5.4);
// - model endpoints (`clouda_deployment_type`): serverless
//   `https://{clouda_deployment_name}.{clouda_region}.models.ai.azure.com` or managed
//   `https://{clouda_endpoint_name}.{clouda_region}.inference.ml.azure.com/score`.
// Bodies are the vendor's on both, so only the URL and credential change.
import { GatewayError } from '../../core/errors.ts';
import type { EndpointKind, PreparedCall, ProviderAdapter, ProviderCall, ProviderOptions } from '../types.ts';
import { joinUrl, stringOption, withQuery } from '../shared/url.ts';
import { missingKey, missingOption, notSupported, vendorBodyCall } from '../shared/vendor-shaped.ts';
import { providerEntry } from '../../../compiler/config/providers.ts';
import { vendorStreamOpening } from '../shared/stream-opening.ts';

const NAME = 'clouda';
/** Used when neither `api_version` nor `clouda_api_version` is set: the newest GA data-plane version. */
export const DEFAULT_API_VERSION = '2024-10-21';

// schema/providers.json lists the union of the two modes' endpoints; each mode refuses the rest.
const DEPLOYMENT_PATHS: Readonly<Partial<Record<EndpointKind, true>>> = { chat: true, completions: true, embeddings: true, audio: true, images: true };
const MODEL_ENDPOINT_PATHS: Readonly<Partial<Record<EndpointKind, true>>> = { chat: true, completions: true, embeddings: true, models: true };
/**
 * The first data-plane version that takes stream_options (2024-09-01-preview; the GA default
 * 2024-10-21 does): earlier ones answer 400 for an argument they do not know.
 */
const STREAM_OPTIONS_SINCE = '2024-09-01';

interface Deployment {
  deployment_id: string;
  alias: string;
  api_version: string;
  is_default?: boolean;
}

export function cloudaAdapter(): ProviderAdapter {
  const bodyCall = vendorBodyCall(NAME);
  const asksStreamUsage = providerEntry(NAME)?.asks_stream_usage === true;
  return {
    name: NAME,
    streamOpening: vendorStreamOpening,
    // Resource deployments take the vendor's current limit field (its reasoning models no other); model endpoints the older one.
    messagesLimitField: ({ options }) => (stringOption(options, 'clouda_deployment_type') === undefined ? 'max_completion_tokens' : 'max_tokens'),
    readsBody: (endpoint, { options }) => endpoint !== 'passthrough' && Array.isArray(options.deployments),
    prepare(call: ProviderCall): PreparedCall {
      if (call.apiKey === null) throw missingKey(NAME);
      const modelEndpoint = stringOption(call.options, 'clouda_deployment_type');
      const { url, headers, version } = modelEndpoint !== undefined ? { ...modelEndpointCall(call, modelEndpoint), version: null } : deploymentCall(call);
      Object.assign(headers, credentialHeaders(call.apiKey, modelEndpoint !== undefined));
      // Resource deployments only: model endpoints serve other APIs, not known to take the option.
      return bodyCall(call, url, headers, asksStreamUsage && version !== null && takesStreamOptions(version));
    },
  };
}

/**
 * Resource deployments take the key as `api-key` (SPEC §5.2: the Bearer token is converted). A
 * credential that is a JWT is a directory access token, which these endpoints take as Bearer.
 */
function credentialHeaders(key: string, modelEndpoint: boolean): Record<string, string> {
  if (modelEndpoint || /^eyJ[\w-]*\.[\w-]+\.[\w-]*$/.test(key)) return { authorization: `Bearer ${key}` };
  return { 'api-key': key };
}

/** Whether a data-plane version (`2024-10-21`, `2025-01-01-preview`) takes stream_options. */
function takesStreamOptions(version: string): boolean {
  return /^\d{4}-\d{2}-\d{2}/.test(version) && version.slice(0, 10) >= STREAM_OPTIONS_SINCE;
}

function deploymentCall(call: ProviderCall): { url: string; headers: Record<string, string>; version: string | null } {
  const { options } = call;
  const resource = stringOption(options, 'clouda_resource_name') ?? stringOption(options, 'resource_name');
  const base = call.customHost ?? (resource === undefined ? undefined : `https://${hostLabel(resource, 'resource_name')}.openai.azure.com/openai`);
  if (base === undefined) throw missingOption(NAME, 'resource_name', ' (or clouda_resource_name, x-gateway-clouda-resource-name, or custom_host)');
  if (call.endpoint === 'models' || call.endpoint === 'passthrough') {
    const version = stringOption(options, 'clouda_api_version') ?? stringOption(options, 'api_version') ?? defaultDeployment(options)?.api_version ?? DEFAULT_API_VERSION;
    return { url: joinUrl(base, withQuery(call.path, 'api-version', version)), headers: {}, version: null };
  }
  if (DEPLOYMENT_PATHS[call.endpoint] !== true) throw notSupported(NAME, call.endpoint);
  const { id, version } = deploymentFor(call);
  return { url: joinUrl(base, withQuery(`/deployments/${encodeURIComponent(id)}${call.path}`, 'api-version', version)), headers: {}, version };
}

/** deployment_id (or clouda_deployment_id), else the `deployments` entry whose alias is the model, else the default one. */
function deploymentFor(call: ProviderCall): { id: string; version: string } {
  const { options } = call;
  const explicitVersion = stringOption(options, 'clouda_api_version') ?? stringOption(options, 'api_version');
  const id = stringOption(options, 'clouda_deployment_id') ?? stringOption(options, 'deployment_id');
  if (id !== undefined) return { id, version: explicitVersion ?? DEFAULT_API_VERSION };
  if (Array.isArray(options.deployments)) {
    const deployments = options.deployments as Deployment[];
    const model = typeof call.body?.model === 'string' ? call.body.model : undefined;
    const chosen = deployments.find((d) => model !== undefined && d.alias === model) ?? deployments.find((d) => d.is_default === true);
    if (chosen === undefined) {
      throw new GatewayError('invalid_provider_option', `No deployment has the alias ${JSON.stringify(model ?? null)} and none is marked is_default.`, 'deployments', { provider: NAME });
    }
    return { id: chosen.deployment_id, version: chosen.api_version };
  }
  // Deployments are commonly named after their model.
  const model = stringOption(options, 'clouda_model_name');
  if (model !== undefined) return { id: model, version: explicitVersion ?? DEFAULT_API_VERSION };
  throw missingOption(NAME, 'deployment_id', ' (or deployments, clouda_deployment_id, x-gateway-clouda-deployment-id)');
}

function defaultDeployment(options: ProviderOptions): Deployment | undefined {
  return Array.isArray(options.deployments) ? (options.deployments as Deployment[]).find((d) => d.is_default === true) : undefined;
}

function modelEndpointCall(call: ProviderCall, type: string): { url: string; headers: Record<string, string> } {
  const { options } = call;
  if (type !== 'serverless' && type !== 'managed') {
    throw new GatewayError('invalid_provider_option', `clouda_deployment_type must be "serverless" or "managed", not ${JSON.stringify(type)}.`, 'clouda_deployment_type', { provider: NAME });
  }
  if (call.endpoint !== 'passthrough' && MODEL_ENDPOINT_PATHS[call.endpoint] !== true) throw notSupported(NAME, call.endpoint);
  const region = stringOption(options, 'clouda_region');
  const deploymentName = stringOption(options, 'clouda_deployment_name');
  const headers: Record<string, string> = {};
  let base = call.customHost;
  if (type === 'serverless') {
    if (base === null) {
      if (deploymentName === undefined) throw missingOption(NAME, 'clouda_deployment_name');
      if (region === undefined) throw missingOption(NAME, 'clouda_region');
      base = `https://${hostLabel(deploymentName.toLowerCase(), 'clouda_deployment_name')}.${hostLabel(region, 'clouda_region')}.models.ai.azure.com`;
    }
  } else {
    if (base === null) {
      const endpoint = stringOption(options, 'clouda_endpoint_name');
      if (endpoint === undefined) throw missingOption(NAME, 'clouda_endpoint_name');
      if (region === undefined) throw missingOption(NAME, 'clouda_region');
      base = `https://${hostLabel(endpoint, 'clouda_endpoint_name')}.${hostLabel(region, 'clouda_region')}.inference.ml.azure.com/score`;
    }
    // A managed endpoint hosts several deployments; this header picks one.
    if (deploymentName !== undefined) headers['azureml-model-deployment'] = deploymentName;
  }
  const version = stringOption(options, 'clouda_api_version');
  return { url: joinUrl(base, version === undefined ? call.path : withQuery(call.path, 'api-version', version)), headers };
}

/** A value spliced into a host name must be one DNS label, or it could point the request elsewhere. */
function hostLabel(value: string, option: string): string {
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(value)) {
    throw new GatewayError('invalid_provider_option', `${option} must be a single host-name label (letters, digits, hyphens).`, option, { provider: NAME });
  }
  return value;
}
