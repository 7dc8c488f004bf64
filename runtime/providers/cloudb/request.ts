// Chat completions → generateContent: system prompts into `systemInstruction`, turns into
// `contents` (assistant → `model`), tool calls into `functionCall` parts and tool answers into
// `functionResponse` parts (named by looking the call id up), sampling and the thinking asked for
// (an effort, or Claude's `thinking`) into `generationConfig`.
import { GatewayError } from '../../core/errors.ts';
import {
  argumentsObject, maxTokensOf, parseDataUrl, stopList, textOf,
  type ChatContentPart, type ChatMessage, type ChatRequest, type ChatToolChoice,
} from '../shared/chat.ts';
import { checkTranslatable, CHAT_PARAMS_READ } from '../shared/translatable.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';
import type { KeptThinking } from '../types.ts';
import { withKeptSignatures } from './kept-thinking.ts';
import { geminiThinkingOf } from '../shared/asked-thinking.ts';
import { refuseStrictTools } from '../shared/structured-output.ts';
import { inlineFileOf } from '../shared/file-part.ts';

export type GenerateContentPart =
  | { text: string; thought?: boolean }
  | { inlineData: { mimeType: string; data: string } }
  | { fileData: { mimeType: string; fileUri: string } }
  | { functionCall: { name: string; args: Record<string, unknown> }; thoughtSignature?: string }
  | { functionResponse: { name: string; response: Record<string, unknown> } };

export interface GenerateContentTurn {
  role: 'user' | 'model';
  parts: GenerateContentPart[];
}

export interface GenerateContentRequest {
  contents: GenerateContentTurn[];
  systemInstruction?: { parts: { text: string }[] };
  generationConfig?: Record<string, unknown>;
  tools?: { functionDeclarations: { name: string; description?: string; parametersJsonSchema?: Record<string, unknown> }[] }[];
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] } };
}

/** The chat parameters this translation reads (the rest: shared/translatable.ts). */
const READS: ReadonlySet<string> = new Set([...CHAT_PARAMS_READ, 'top_k', 'seed', 'presence_penalty', 'frequency_penalty', 'reasoning_effort', 'thinking']);

/** `kept`: thought signatures kept from earlier answers, put back on the calls they came with (kept-thinking.ts). */
export function toGenerateContentRequest(chat: ChatRequest, provider: string, kept: ReadonlyMap<string, KeptThinking> | null = null): GenerateContentRequest {
  checkTranslatable(chat, READS, provider);
  refuseStrictTools(chat, provider);
  if (chat.logprobs === true) throw new GatewayError('unsupported_parameter', `The gateway does not map logprobs for the provider "${provider}".`, 'logprobs');
  if (chat.stream === true && typeof chat.n === 'number' && chat.n > 1) {
    throw new GatewayError('unsupported_parameter', `Streams from the provider "${provider}" carry one choice; n must be 1 when stream is true.`, 'n');
  }
  const system: { text: string }[] = [];
  const contents: GenerateContentTurn[] = [];
  const callNames = new Map<string, string>();
  for (const message of chat.messages) {
    if (message.role === 'system' || message.role === 'developer') {
      const text = textOf(message.content);
      if (text !== '') system.push({ text });
      continue;
    }
    for (const call of message.tool_calls ?? []) callNames.set(call.id, call.function.name);
    const turn = turnOf(message, callNames, kept, provider);
    if (turn === null) continue;
    const last = contents.at(-1);
    if (last !== undefined && last.role === turn.role) last.parts.push(...turn.parts);
    else contents.push(turn);
  }
  const request: GenerateContentRequest = { contents };
  if (system.length > 0) request.systemInstruction = { parts: system };
  const config = generationConfigOf(chat, provider);
  if (Object.keys(config).length > 0) request.generationConfig = config;
  if (Array.isArray(chat.tools) && chat.tools.length > 0) {
    request.tools = [{
      functionDeclarations: chat.tools.map((tool) => ({
        name: tool.function.name,
        ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
        // As JSON Schema, the chat API's own dialect: the older `parameters` takes a subset of
        // OpenAPI 3.0 and refuses what client tools carry (`$schema`, `additionalProperties`,
        // `const`, `exclusiveMinimum`, `$defs`: the service's "Unknown name … Cannot find field").
        ...(tool.function.parameters !== undefined ? { parametersJsonSchema: tool.function.parameters } : {}),
      })),
    }];
  }
  const toolConfig = toolConfigOf(chat.tool_choice);
  if (toolConfig !== undefined) request.toolConfig = toolConfig;
  return request;
}

function turnOf(message: ChatMessage, callNames: ReadonlyMap<string, string>, kept: ReadonlyMap<string, KeptThinking> | null, provider: string): GenerateContentTurn | null {
  switch (message.role) {
    case 'user':
      return { role: 'user', parts: typeof message.content === 'string' ? [{ text: message.content }] : (message.content ?? []).map((part) => partOf(part, provider)) };
    case 'assistant': {
      const parts: GenerateContentPart[] = [];
      const text = textOf(message.content);
      if (text !== '') parts.push({ text });
      for (const call of message.tool_calls ?? []) parts.push({ functionCall: { name: call.function.name, args: argumentsObject(call) } });
      return parts.length === 0 ? null : { role: 'model', parts: withKeptSignatures(parts, (message.tool_calls ?? []).map((call) => call.id), kept) };
    }
    case 'tool': {
      const name = callNames.get(message.tool_call_id ?? '');
      if (name === undefined) {
        throw new GatewayError('invalid_request_body', `The tool message answers "${message.tool_call_id}", which no earlier assistant message called.`, 'messages');
      }
      return { role: 'user', parts: [{ functionResponse: { name, response: responseObject(textOf(message.content)) } }] };
    }
    default:
      throw new GatewayError('unsupported_parameter', `Messages with role "${message.role}" cannot be sent to generateContent; use "tool".`, 'messages');
  }
}

/** A function response must be an object: a JSON object answer as it is, anything else under `content`. */
function responseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = parseJson(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // plain text
  }
  return { content: text };
}

const IMAGE_TYPES: Readonly<Record<string, string>> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif', pdf: 'application/pdf' };

/** The documents Gemini reads inline (its file name has no place in the part, and is left out). */
const DOCUMENT_TYPES: ReadonlySet<string> = new Set(['application/pdf', 'text/plain']);

function partOf(part: ChatContentPart, provider: string): GenerateContentPart {
  if (part.type === 'text') return { text: String(part.text ?? '') };
  if (part.type === 'image_url') {
    const url = (part as { image_url?: { url?: unknown } }).image_url?.url;
    if (typeof url === 'string') {
      const data = parseDataUrl(url);
      if (data !== null) return { inlineData: { mimeType: data.mediaType, data: data.data } };
      const extension = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase() ?? '';
      return { fileData: { mimeType: IMAGE_TYPES[extension] ?? 'image/jpeg', fileUri: url } };
    }
  }
  if (part.type === 'file') {
    const file = inlineFileOf(part, provider, DOCUMENT_TYPES, 'an inlineData part');
    return { inlineData: { mimeType: file.mediaType, data: file.data } };
  }
  throw new GatewayError('unsupported_parameter', `Content parts of type "${part.type}" cannot be sent to generateContent.`, 'messages');
}

function generationConfigOf(chat: ChatRequest, provider: string): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  if (typeof chat.temperature === 'number') config.temperature = chat.temperature;
  if (typeof chat.top_p === 'number') config.topP = chat.top_p;
  if (typeof chat.top_k === 'number') config.topK = chat.top_k;
  const maxTokens = maxTokensOf(chat);
  if (maxTokens !== undefined) config.maxOutputTokens = maxTokens;
  const stop = stopList(chat.stop);
  if (stop !== undefined) config.stopSequences = stop;
  if (typeof chat.n === 'number' && chat.n > 1) config.candidateCount = chat.n;
  if (typeof chat.seed === 'number') config.seed = chat.seed;
  if (typeof chat.presence_penalty === 'number') config.presencePenalty = chat.presence_penalty;
  if (typeof chat.frequency_penalty === 'number') config.frequencyPenalty = chat.frequency_penalty;
  const format = chat.response_format;
  if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  else if (format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    if (format.json_schema?.schema !== undefined) config.responseJsonSchema = format.json_schema.schema;
  }
  const thinking = geminiThinkingOf(chat, provider);
  if (thinking !== undefined) config.thinkingConfig = thinking;
  return config;
}

function toolConfigOf(choice: ChatToolChoice | null | undefined): GenerateContentRequest['toolConfig'] {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
}
