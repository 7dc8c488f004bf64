// What the semantic cache compares: the request's text (the non-system messages of a chat, or a
// completion's prompt), and the rest of the request, which must match exactly (model, parameters,
// system messages, stream or not): a semantic match only ever differs in that text.

import { type ChatMessage, textOf } from '../../providers/shared/chat.ts';

const SYSTEM_ROLES = new Set(['system', 'developer']);

export interface SplitRequest {
  /** The text embedded; '' when the request has none (then the request is a SEMANTIC MISS). */
  text: string;
  /** The request without that text: part of the semantic key scope. */
  rest: Record<string, unknown>;
}

export function splitRequest(endpoint: 'chat' | 'completions', params: unknown): SplitRequest {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return { text: '', rest: {} };
  const body = params as Record<string, unknown>;
  if (endpoint === 'completions') {
    const { prompt, ...rest } = body;
    return { text: typeof prompt === 'string' ? prompt : Array.isArray(prompt) ? prompt.filter((p) => typeof p === 'string').join('\n') : '', rest };
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const texts: string[] = [];
  const kept: unknown[] = [];
  for (const message of messages) {
    const role = (message as { role?: unknown } | null)?.role;
    if (typeof role === 'string' && SYSTEM_ROLES.has(role)) kept.push(message);
    else {
      // The role stays in the scope (a user turn is not an assistant turn); the words are compared.
      kept.push({ role });
      texts.push(textOf((message as ChatMessage).content));
    }
  }
  return { text: texts.join('\n').trim(), rest: { ...body, messages: kept } };
}
