// The first-party vendor's API, which is also the wire format the gateway speaks to its clients, so
// requests and responses pass through untransformed. `vendor_organization` and `vendor_project`
// become the vendor's organization and project headers.
import type { ProviderAdapter, ProviderCall } from '../types.ts';
import { stringOption } from '../shared/url.ts';
import { manifestEndpoints, vendorShapedAdapter } from '../shared/vendor-shaped.ts';
import { providerEntry } from '../../../compiler/config/providers.ts';
import { inputTokensBody, inputTokensResponse, inputTokensUrl } from './input-tokens.ts';

export const VENDOR_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export function vendorAdapter(baseUrl: string = process.env.GATEWAY_VENDOR_BASE_URL ?? VENDOR_DEFAULT_BASE_URL): ProviderAdapter {
  return vendorShapedAdapter({
    name: 'vendor',
    baseUrl,
    endpoints: manifestEndpoints('vendor'),
    keyRequired: true,
    // At its own base URL only: `vendor` with a custom_host may be any server that speaks its API.
    asksStreamUsage: providerEntry('vendor')?.asks_stream_usage === true ? 'ownHost' : false,
    // Its reasoning models take no `max_tokens`; every model takes this.
    maxTokensField: 'max_completion_tokens',
    // Its chat API counts nothing; its Responses API counts the same input.
    chatTokenCount: { url: inputTokensUrl, body: inputTokensBody, response: inputTokensResponse },
    extraHeaders(call: ProviderCall): Record<string, string> {
      const headers: Record<string, string> = {};
      const organization = stringOption(call.options, 'vendor_organization');
      const project = stringOption(call.options, 'vendor_project');
      if (organization !== undefined) headers['vendor-organization'] = organization;
      if (project !== undefined) headers['vendor-project'] = project;
      return headers;
    },
  });
}
