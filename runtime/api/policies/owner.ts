// Who a new policy belongs to. Every gateway key carries a workspace and an organisation, so the
// body's `workspace_id` / `organisation_id` (SPEC §4.11: required only without such a key) are
// optional here and default to the caller's; an admin key acts within its own organisation.
import type { ApiKeyRecord } from '../../store/api-key-store.ts';
import type { PolicyOwner } from '../../store/policy-fields.ts';
import { GatewayError } from '../../core/errors.ts';
import { notFound, workspaceIdOf } from '../http.ts';

export function ownerOf(caller: ApiKeyRecord, body: { workspace_id?: string; organisation_id?: string }): PolicyOwner {
  const organisationId = body.organisation_id?.toLowerCase() ?? caller.organisationId;
  if (organisationId !== caller.organisationId) {
    throw new GatewayError('forbidden', "An admin key manages its own organisation's policies only.", 'organisation_id');
  }
  return { organisationId, workspaceId: workspaceIdOf(body.workspace_id, 'body') ?? caller.workspaceId };
}

/** The policy, when it exists and belongs to the caller's organisation; 404 otherwise (other organisations' IDs are not confirmed). */
export function ownPolicy<T extends PolicyOwner>(caller: ApiKeyRecord, policy: T | null, id: string, kind: string, param: string): T {
  if (policy === null || policy.organisationId !== caller.organisationId) throw notFound(kind, id, param);
  return policy;
}
