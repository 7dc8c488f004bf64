// The §5.4 cloud headers (and the vendor's organization and project) as provider options, under
// the config field names, so a request that names its provider in headers reads like a config.
import type { IncomingHttpHeaders } from 'node:http';

/** Header → config field. The access-key-id header name is not given by the spec; this one mirrors its siblings. */
export const HEADER_OPTIONS: Readonly<Record<string, string>> = {
  'x-gateway-clouda-resource-name': 'clouda_resource_name',
  'x-gateway-clouda-deployment-id': 'clouda_deployment_id',
  'x-gateway-clouda-api-version': 'clouda_api_version',
  'x-gateway-clouda-model-name': 'clouda_model_name',
  'x-gateway-cloudb-project-id': 'cloudb_project_id',
  'x-gateway-cloudb-region': 'cloudb_region',
  'x-gateway-cloudb-service-account-json': 'cloudb_service_account_json',
  'x-gateway-cloudc-access-key-id': 'cloudc_access_key_id',
  'x-gateway-cloudc-secret-access-key': 'cloudc_secret_access_key',
  'x-gateway-cloudc-region': 'cloudc_region',
  'x-gateway-cloudc-session-token': 'cloudc_session_token',
  'x-gateway-vendor-organization': 'vendor_organization',
  'x-gateway-vendor-project': 'vendor_project',
};

const NONE: Readonly<Record<string, unknown>> = Object.freeze({});

export function headerOptions(headers: IncomingHttpHeaders): Readonly<Record<string, unknown>> {
  let options: Record<string, unknown> | null = null;
  for (const name in HEADER_OPTIONS) {
    const value = headers[name];
    if (typeof value !== 'string' || value === '') continue;
    options ??= {};
    // The service account travels as JSON text in its header; a config holds it as an object.
    options[HEADER_OPTIONS[name]] = name === 'x-gateway-cloudb-service-account-json' ? parseJsonOrText(value) : value;
  }
  return options ?? NONE;
}

function parseJsonOrText(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
