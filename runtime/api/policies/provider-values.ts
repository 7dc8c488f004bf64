// A policy condition on `provider` matches the target's canonical provider name (`vendor` for a
// config's `openai`, compiler/config/providers.ts), so a value no provider has would match nothing:
// a misspelt `opnai` would leave the limit silently off. Such values are refused when a policy is
// created or changed. `*` and a prefix that some provider's name starts with are accepted; an alias
// is accepted and matches its provider. A `@slug` is refused with a pointer to `virtual_key`: a
// target named by slug has the provider of the integration behind it, and the integration's ID.
import { PROVIDERS, providerEntry } from '../../../compiler/config/providers.ts';
import { didYouMean } from '../../../compiler/config/suggest.ts';
import { GatewayError } from '../../core/errors.ts';
import type { PolicyCondition } from '../../store/policy-fields.ts';

const NAMES = PROVIDERS.flatMap((p) => [p.name, ...(p.aliases ?? [])]);

export function refuseUnknownProviders(conditions: readonly PolicyCondition[] | undefined): void {
  conditions?.forEach((condition, index) => {
    if (condition.key !== 'provider' || matchesSomeProvider(condition.value)) return;
    if (condition.value.startsWith('@')) {
      throw new GatewayError(
        'invalid_request_body',
        `Invalid request body: ${JSON.stringify(condition.value)} names a stored integration, not a provider; a target named by it has that integration's provider. Match the integration itself with {"key": "virtual_key", "value": "<its virtual key ID>"}.`,
        `/conditions/${index}/value`,
      );
    }
    const hint = didYouMean(condition.value.replace(/\*$/, ''), NAMES);
    throw new GatewayError(
      'invalid_request_body',
      `Invalid request body: no provider is named ${JSON.stringify(condition.value)}, so the condition would match no request${hint === undefined ? '' : ` (${hint})`}. Known: ${PROVIDERS.map((p) => p.name).join(', ')}.`,
      `/conditions/${index}/value`,
    );
  });
}

function matchesSomeProvider(value: string): boolean {
  if (value === '*') return true;
  if (!value.endsWith('*')) return providerEntry(value) !== undefined;
  const prefix = value.slice(0, -1).toLowerCase();
  return PROVIDERS.some((p) => p.name.startsWith(prefix));
}
