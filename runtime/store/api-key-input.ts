// Validation and defaults for new keys, shared by every store backend so they accept the same input.
import type { ApiKeyRecord, CreateApiKeyInput } from './api-key-store.ts';
import { isApiKeyScope } from './api-key-store.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const MAX_KEY_NAME_LENGTH = 255;

export class InvalidApiKeyInput extends Error {}

export function normaliseCreateInput(
  input: CreateApiKeyInput,
  defaults: { workspaceId: string; organisationId: string },
): Pick<ApiKeyRecord, 'name' | 'scope' | 'workspaceId' | 'organisationId'> {
  const name = input.name ?? '';
  if (name.length > MAX_KEY_NAME_LENGTH) throw new InvalidApiKeyInput(`name must be at most ${MAX_KEY_NAME_LENGTH} characters`);
  const scope = input.scope ?? 'inference';
  if (!isApiKeyScope(scope)) throw new InvalidApiKeyInput(`scope must be admin or inference, not ${JSON.stringify(scope)}`);
  const workspaceId = input.workspaceId ?? defaults.workspaceId;
  const organisationId = input.organisationId ?? defaults.organisationId;
  if (!UUID.test(workspaceId)) throw new InvalidApiKeyInput(`workspace ID must be a UUID, not ${JSON.stringify(workspaceId)}`);
  if (!UUID.test(organisationId)) throw new InvalidApiKeyInput(`organisation ID must be a UUID, not ${JSON.stringify(organisationId)}`);
  return { name, scope, workspaceId: workspaceId.toLowerCase(), organisationId: organisationId.toLowerCase() };
}
