// A protocol-faithful mock of the messages-style API: `x-api-key` and `anthropic-version` checked,
// POST /v1/messages (JSON and the SSE event sequence), POST /v1/messages/count_tokens, GET /v1/models,
// everything else echoed.
import { startMockServer, type MockServer } from '../http/mock-server.ts';
import type { MockContext } from '../vendor/context.ts';
import { echo } from '../vendor/echo.ts';
import { sendBytes } from '../http/respond.ts';
import { messagesHeaders, sendMessagesError, sendMessagesJson } from './errors.ts';
import { countTokens, messages } from './messages.ts';
import { MockPromptCache } from '../http/prompt-cache.ts';

export const MESSAGES_MOCK_KEY = 'sk-ant-mock-key-0001';
export const MESSAGES_MODELS: readonly string[] = ['claude-mock-1', 'claude-mock-mini'];
export { errorBody as messagesErrorBody } from './errors.ts';

export interface MessagesMockOptions {
  label?: string;
  apiKeys?: readonly string[];
  port?: number;
}

export function startMessagesMock(options: MessagesMockOptions = {}): Promise<MockServer> {
  const apiKeys = options.apiKeys ?? [MESSAGES_MOCK_KEY];
  const promptCache = new MockPromptCache();
  return startMockServer({
    label: options.label ?? 'messages-mock',
    models: MESSAGES_MODELS,
    port: options.port,
    async authenticate(ctx: MockContext): Promise<boolean> {
      const key = ctx.req.headers['x-api-key'];
      if (typeof key !== 'string' || key === '') {
        await sendMessagesError(ctx, 401, { message: 'x-api-key header is required' });
        return false;
      }
      if (!apiKeys.includes(key)) {
        await sendMessagesError(ctx, 401, { message: 'invalid x-api-key' });
        return false;
      }
      if (typeof ctx.req.headers['anthropic-version'] !== 'string') {
        await sendMessagesError(ctx, 400, { message: 'anthropic-version: header is required' });
        return false;
      }
      return true;
    },
    sendError: sendMessagesError,
    sendBody: (ctx, status, contentType, body) => sendBytes(ctx, status, { ...messagesHeaders(ctx), 'content-type': contentType }, body),
    async route(ctx: MockContext): Promise<void> {
      const { method, path } = ctx.record;
      if (path === '/v1/messages') {
        if (method === 'POST') return messages(ctx, promptCache);
        return sendMessagesError(ctx, 405, { type: 'invalid_request_error', message: `Method ${method} not allowed` });
      }
      if (path === '/v1/messages/count_tokens' && method === 'POST') return countTokens(ctx);
      if (path === '/v1/models' && method === 'GET') {
        const data = ctx.models.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' }));
        return sendMessagesJson(ctx, 200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
      }
      return echo(ctx);
    },
  });
}
