// The first-party vendor's API, which is also the wire format the gateway speaks to its clients, so
// requests and responses pass through untransformed. Also serves any vendor-compatible custom_host.
import type { PlanLeaf } from '../../../compiler/config/route-plan.ts';
import type { ProviderAdapter } from '../types.ts';

export const VENDOR_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export function vendorAdapter(baseUrl: string = process.env.GATEWAY_VENDOR_BASE_URL ?? VENDOR_DEFAULT_BASE_URL): ProviderAdapter {
  return {
    name: 'vendor',
    baseUrl,
    authHeaders(apiKey: string, leaf: PlanLeaf): Record<string, string> {
      const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
      const { vendor_organization: organization, vendor_project: project } = leaf.providerOptions;
      if (typeof organization === 'string') headers['vendor-organization'] = organization;
      if (typeof project === 'string') headers['vendor-project'] = project;
      return headers;
    },
  };
}
