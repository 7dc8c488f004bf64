// An API key as the API and `gateway keys --json` show it (schema/resources/api-key.json): snake_case,
// never its secret.
import type { ApiKey as ApiKeyWire } from '../../../generated/types.ts';
import type { ApiKeyRecord } from '../../store/api-key-store.ts';

export function apiKeyWire(record: ApiKeyRecord): ApiKeyWire {
  return {
    object: 'api_key',
    id: record.id,
    name: record.name,
    scope: record.scope,
    workspace_id: record.workspaceId,
    organisation_id: record.organisationId,
    created_at: record.createdAt,
    revoked_at: record.revokedAt,
  };
}
