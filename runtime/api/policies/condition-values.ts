// Condition values that could match no request, refused when a policy is created or changed: each
// would leave the limit silently off. A `provider` condition matches the target's canonical provider
// name (`vendor` for a config's `openai`, compiler/config/providers.ts), so a value no provider has
// (a misspelt `opnai`) matches nothing. `*` and a prefix that some provider's name starts with are accepted; an alias
// is accepted and matches its provider. A `@slug` is refused with a pointer to `virtual_key`: a
// target named by slug has the provider of the integration behind it, and the integration's ID.
// `virtual_key` and `api_key` conditions match IDs the gateway made: an exact value that is no stored
// key's ID (a key's name or slug in its place, or a typo) is refused too.
import { PROVIDERS, providerEntry } from '../../../compiler/config/providers.ts';
import { didYouMean } from '../../../compiler/config/suggest.ts';
import { GatewayError } from '../../core/errors.ts';
import type { PolicyCondition } from '../../store/policy-fields.ts';
import type { GatewayStore } from '../../store/open-store.ts';

const NAMES = PROVIDERS.flatMap((p) => [p.name, ...(p.aliases ?? [])]);

/** `organisationId`: the policy's; it counts its own organisation's keys only. */
export async function refuseUnmatchableValues(store: GatewayStore, conditions: readonly PolicyCondition[] | undefined, organisationId: string): Promise<void> {
  if (conditions === undefined) return;
  for (const [index, condition] of conditions.entries()) {
    if (condition.key === 'provider') refuseUnknownProvider(condition.value, index);
    else if (!condition.value.endsWith('*') && condition.key === 'virtual_key') await refuseUnknownVirtualKey(store, condition.value, index);
    else if (!condition.value.endsWith('*') && condition.key === 'api_key' && (await store.apiKeys.get(condition.value))?.organisationId !== organisationId) {
      throw unmatchable(`no gateway API key of this organisation has the ID ${JSON.stringify(condition.value)}`, index);
    }
  }
}

async function refuseUnknownVirtualKey(store: GatewayStore, value: string, index: number): Promise<void> {
  if ((await store.virtualKeys.get(value)) !== null) return;
  // A key's slug or name in place of its ID is the likely mistake: say which key it names.
  const named = (await store.virtualKeys.loadAll()).find((key) => key.slug === value || key.slug === value.replace(/^@/, '') || key.name === value);
  throw unmatchable(`no virtual key has the ID ${JSON.stringify(value)}${named === undefined ? '' : ` (it names the key whose ID is ${JSON.stringify(named.id)}: conditions match IDs)`}`, index);
}

function unmatchable(why: string, index: number): GatewayError {
  return new GatewayError('invalid_request_body', `Invalid request body: ${why}, so the condition would match no request.`, `/conditions/${index}/value`);
}

function refuseUnknownProvider(value: string, index: number): void {
  if (matchesSomeProvider(value)) return;
  if (value.startsWith('@')) {
    throw new GatewayError(
      'invalid_request_body',
      `Invalid request body: ${JSON.stringify(value)} names a stored integration, not a provider; a target named by it has that integration's provider. Match the integration itself with {"key": "virtual_key", "value": "<its virtual key ID>"}.`,
      `/conditions/${index}/value`,
    );
  }
  const hint = didYouMean(value.replace(/\*$/, ''), NAMES);
  throw new GatewayError(
    'invalid_request_body',
    `Invalid request body: no provider is named ${JSON.stringify(value)}, so the condition would match no request${hint === undefined ? '' : ` (${hint})`}. Known: ${PROVIDERS.map((p) => p.name).join(', ')}.`,
    `/conditions/${index}/value`,
  );
}

function matchesSomeProvider(value: string): boolean {
  if (value === '*') return true;
  if (!value.endsWith('*')) return providerEntry(value) !== undefined;
  const prefix = value.slice(0, -1).toLowerCase();
  return PROVIDERS.some((p) => p.name.startsWith(prefix));
}
