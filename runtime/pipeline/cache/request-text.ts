// What the semantic cache compares: the request's text (the words of a chat's user and assistant
// turns, or a completion's prompt), and the rest of the request, which must match exactly (model,
// parameters, system messages, tool results, stream or not, images and tool calls): a semantic match
// only ever differs in that text.

import { isTextPart, textOf } from '../../providers/shared/chat.ts';

/**
 * Turns compared exactly, not by their words: the instructions, and what tools returned (data, where
 * "20 °C" and "30 °C" read alike to an embedding and are not the same answer).
 */
const EXACT_ROLES = new Set(['system', 'developer', 'tool', 'function']);

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
    // Only the words are compared: a list of prompts is several questions (one choice each), and
    // token ids are not words, so the prompt's form, and any token ids, must match exactly.
    if (typeof prompt === 'string') return { text: prompt, rest };
    if (!Array.isArray(prompt)) return { text: '', rest: body };
    const text = prompt.filter((p) => typeof p === 'string').join('\n');
    return { text, rest: { ...rest, prompt: prompt.map((p) => (typeof p === 'string' ? '' : p)) } };
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const texts: string[] = [];
  const kept: unknown[] = [];
  for (const message of messages) {
    const role = (message as { role?: unknown } | null)?.role;
    if (message === null || typeof message !== 'object' || (typeof role === 'string' && EXACT_ROLES.has(role))) {
      kept.push(message);
      continue;
    }
    // Only the words are compared. The rest of the turn stays in the scope and must match exactly:
    // its role, tool calls and their ids, and every part that is not text (an image, audio, a file),
    // so "what is in this picture?" about another picture is not the same question.
    const { content, ...turn } = message as Record<string, unknown>;
    const media = Array.isArray(content) ? content.filter((part) => !isTextPart(part)) : [];
    kept.push(media.length === 0 ? turn : { ...turn, content: media });
    texts.push(textOf(content));
  }
  return { text: texts.join('\n').trim(), rest: { ...body, messages: kept } };
}
