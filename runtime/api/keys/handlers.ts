// The keys admin API (`/v1/api-keys`): create, list, get and revoke gateway API keys. Admin keys act
// within their own organisation: they see, create and revoke only its keys.
import type { ApiKeyCreate, ApiKeyList, ApiKeyCreated } from '../../../generated/types.ts';
import { apiKeyWire } from './wire.ts';
import type { ApiKeyRecord } from '../../store/api-key-store.ts';
import { InvalidApiKeyInput } from '../../store/api-key-input.ts';
import type { GatewayStore } from '../../store/open-store.ts';
import type { RequestContext } from '../../server/context.ts';
import { GatewayError } from '../../core/errors.ts';
import type { Handler } from '../../server/server.ts';
import { listBody, notFound, pageOf, pathParam, requireAdmin, sendOk } from '../http.ts';

export function apiKeyHandlers(store: GatewayStore): Record<string, Handler> {
  async function ownKey(ctx: RequestContext): Promise<ApiKeyRecord> {
    const caller = requireAdmin(ctx);
    const id = pathParam(ctx, 'apiKeyId');
    const record = await store.apiKeys.get(id);
    if (record === null || record.organisationId !== caller.organisationId) throw notFound('API key', id, 'apiKeyId');
    return record;
  }

  return {
    'apiKeys.create': async (ctx) => {
      const caller = requireAdmin(ctx);
      const body = (await ctx.json()) as ApiKeyCreate;
      const organisationId = body.organisation_id?.toLowerCase() ?? caller.organisationId;
      if (organisationId !== caller.organisationId) {
        throw new GatewayError('forbidden', 'An admin key creates keys in its own organisation only.', 'organisation_id');
      }
      let created;
      try {
        created = await store.apiKeys.create({ name: body.name, scope: body.scope, workspaceId: body.workspace_id ?? caller.workspaceId, organisationId });
      } catch (error) {
        if (error instanceof InvalidApiKeyInput) throw new GatewayError('invalid_request_body', error.message);
        throw error;
      }
      await store.changes.refresh();
      sendOk(ctx, { ...apiKeyWire(created.record), key: created.key } satisfies ApiKeyCreated);
    },

    'apiKeys.list': async (ctx) => {
      const caller = requireAdmin(ctx);
      const records = await store.apiKeys.list({ organisationId: caller.organisationId });
      const page = pageOf(ctx.query);
      const slice = page.limit === null ? records.slice(page.offset) : records.slice(page.offset, page.offset + page.limit);
      sendOk(ctx, listBody(slice.map(apiKeyWire), records.length) satisfies ApiKeyList);
    },

    'apiKeys.retrieve': async (ctx) => {
      sendOk(ctx, apiKeyWire(await ownKey(ctx)));
    },

    'apiKeys.revoke': async (ctx) => {
      const record = await ownKey(ctx);
      const revoked = await store.apiKeys.revoke(record.id);
      if (revoked === null) throw notFound('API key', record.id, 'apiKeyId');
      await store.changes.refresh();
      sendOk(ctx, apiKeyWire(revoked));
    },
  };
}
