// chat → messages / generateContent / converse keeps the conversation's meaning: read back with
// an inverse written here from each API's documentation, the transcript (system prompts, user
// text and images, assistant text, tool calls and their results, in order) is the chat's own, the
// turns alternate as each API requires, and the sampling parameters land in the right fields.
import { describe, expect } from 'vitest';
import { test } from '@fast-check/vitest';
import { anthropicAdapter } from '../../runtime/providers/anthropic/index.ts';
import { DEFAULT_ANSWER_TOKENS } from '../../runtime/providers/shared/asked-thinking.ts';
import { cloudbAdapter } from '../../runtime/providers/cloudb/index.ts';
import { cloudcAdapter } from '../../runtime/providers/cloudc/index.ts';
import type { ChatRequest } from '../../runtime/providers/shared/chat.ts';
import { prepare, sentJson } from './adapter-calls.ts';
import { chatRequestArb, chatTranscript, type Transcript, type TranscriptItem } from './chat-arbitraries.ts';

type Json = Record<string, any>;

function stopOf(chat: ChatRequest): string[] | undefined {
  return chat.stop === undefined || chat.stop === null ? undefined : typeof chat.stop === 'string' ? [chat.stop] : chat.stop;
}

function alternates(roles: string[]): boolean {
  return roles.every((role, i) => i === 0 || roles[i - 1] !== role);
}

function messagesTranscript(request: Json): Transcript {
  const items: TranscriptItem[] = [];
  for (const turn of request.messages as Json[]) {
    for (const block of turn.content as Json[]) {
      if (block.type === 'text') items.push({ kind: turn.role === 'user' ? 'user' : 'assistant', text: block.text });
      else if (block.type === 'image') items.push({ kind: 'image', mediaType: block.source.media_type, data: block.source.data });
      else if (block.type === 'tool_use') items.push({ kind: 'call', id: block.id, name: block.name, args: block.input });
      else if (block.type === 'tool_result') items.push({ kind: 'result', id: block.tool_use_id, text: block.content });
    }
  }
  return { system: (request.system ?? []).map((b: Json) => b.text), items };
}

function generateContentTranscript(request: Json): Transcript {
  const items: TranscriptItem[] = [];
  for (const turn of request.contents as Json[]) {
    for (const part of turn.parts as Json[]) {
      if (typeof part.text === 'string') items.push({ kind: turn.role === 'user' ? 'user' : 'assistant', text: part.text });
      else if (part.inlineData) items.push({ kind: 'image', mediaType: part.inlineData.mimeType, data: part.inlineData.data });
      else if (part.functionCall) items.push({ kind: 'call', id: '', name: part.functionCall.name, args: part.functionCall.args });
      else if (part.functionResponse) items.push({ kind: 'result', id: part.functionResponse.name, text: part.functionResponse.response.content });
    }
  }
  return { system: (request.systemInstruction?.parts ?? []).map((p: Json) => p.text), items };
}

/** generateContent names calls by function, not by id: compare on that. */
function byFunctionName(transcript: Transcript): Transcript {
  const names = new Map<string, string>();
  const items = transcript.items.map((item) => {
    if (item.kind === 'call') {
      names.set(item.id, item.name);
      return { ...item, id: '' };
    }
    return item.kind === 'result' ? { ...item, id: names.get(item.id)! } : item;
  });
  return { system: transcript.system, items };
}

const FORMATS: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

function converseTranscript(request: Json): Transcript {
  const items: TranscriptItem[] = [];
  for (const turn of request.messages as Json[]) {
    for (const block of turn.content as Json[]) {
      if (typeof block.text === 'string') items.push({ kind: turn.role === 'user' ? 'user' : 'assistant', text: block.text });
      else if (block.image) items.push({ kind: 'image', mediaType: FORMATS[block.image.format], data: block.image.source.bytes });
      else if (block.toolUse) items.push({ kind: 'call', id: block.toolUse.toolUseId, name: block.toolUse.name, args: block.toolUse.input });
      else if (block.toolResult) items.push({ kind: 'result', id: block.toolResult.toolUseId, text: block.toolResult.content[0].text });
    }
  }
  return { system: (request.system ?? []).map((b: Json) => b.text), items };
}

describe('chat → provider request transforms', () => {
  test.prop([chatRequestArb])('messages API', async (chat) => {
    const sent = sentJson(await prepare(anthropicAdapter(), { body: chat }));
    expect(messagesTranscript(sent)).toEqual(chatTranscript(chat));
    expect(alternates(sent.messages.map((m: Json) => m.role))).toBe(true);
    expect(sent.max_tokens).toBe(chat.max_tokens ?? DEFAULT_ANSWER_TOKENS);
    expect(sent.temperature).toBe(chat.temperature ?? undefined);
    expect(sent.top_p).toBe(chat.top_p ?? undefined);
    expect(sent.stop_sequences).toEqual(stopOf(chat));
    expect((sent.tools ?? []).map((t: Json) => t.name)).toEqual((chat.tools ?? []).map((t) => t.function.name));
  });

  test.prop([chatRequestArb])('generateContent', async (chat) => {
    const sent = sentJson(await prepare(cloudbAdapter(), { body: chat, options: { cloudb_region: 'us-central1', cloudb_project_id: 'p' } }));
    expect(generateContentTranscript(sent)).toEqual(byFunctionName(chatTranscript(chat)));
    expect(alternates(sent.contents.map((m: Json) => m.role))).toBe(true);
    expect(sent.generationConfig?.maxOutputTokens).toBe(chat.max_tokens ?? undefined);
    expect(sent.generationConfig?.temperature).toBe(chat.temperature ?? undefined);
    expect(sent.generationConfig?.topP).toBe(chat.top_p ?? undefined);
    expect(sent.generationConfig?.stopSequences).toEqual(stopOf(chat));
    expect((sent.tools?.[0]?.functionDeclarations ?? []).map((t: Json) => t.name)).toEqual((chat.tools ?? []).map((t) => t.function.name));
  });

  test.prop([chatRequestArb])('converse', async (chat) => {
    const sent = sentJson(await prepare(cloudcAdapter(), { body: chat, apiKey: 'k', options: { cloudc_region: 'us-east-1' } }));
    expect(converseTranscript(sent)).toEqual(chatTranscript(chat));
    expect(alternates(sent.messages.map((m: Json) => m.role))).toBe(true);
    expect(sent.messages[0].role).toBe('user');
    expect(sent.inferenceConfig?.maxTokens).toBe(chat.max_tokens ?? undefined);
    expect(sent.inferenceConfig?.temperature).toBe(chat.temperature ?? undefined);
    expect(sent.inferenceConfig?.stopSequences).toEqual(stopOf(chat));
    expect((sent.toolConfig?.tools ?? []).map((t: Json) => t.toolSpec.name)).toEqual((chat.tools ?? []).map((t) => t.function.name));
  });
});
