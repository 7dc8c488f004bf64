// generateContent, streamGenerateContent (alt=sse, or a JSON array without it) and :predict as
// the service answers them. Bodies are checked the way the service does (contents, roles, parts,
// function responses answering a call), and the reply is the instance label and the prompt's words,
// a functionCall when functions are declared (a Gemini 3 model's with a thought signature, which it
// wants back on that call's part in later turns), several candidates for candidateCount; a thinking config
// checked as the service checks it, its thought tokens counted, a thought summary when asked for. A request that
// repeats an earlier one's system instruction and turns has them read from the implicit cache
// (usageMetadata.cachedContentTokenCount).
import type { MockContext } from '../vendor/context.ts';
import { jsonObject, vendorId } from '../vendor/context.ts';
import { embeddingOf } from '../vendor/embeddings.ts';
import { replyFor, words } from '../vendor/reply-text.ts';
import { sendBytes, sendEvents } from '../http/respond.ts';
import type { MockPromptCache, PromptItem } from '../http/prompt-cache.ts';
import { reasoningSignature } from '../http/reasoning-signature.ts';

type Json = Record<string, any>;

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED', 499: 'CANCELLED', 500: 'INTERNAL', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED',
};

export function cloudbErrorBody(status: number, message?: string): Json {
  const name = STATUS_NAMES[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
  return { error: { code: status, message: message ?? `The service answered ${name}.`, status: name } };
}

export function sendCloudbError(ctx: MockContext, status: number, message?: string): Promise<void> {
  return sendBytes(ctx, status, { 'content-type': 'application/json; charset=UTF-8', 'x-mock-instance': ctx.label }, Buffer.from(JSON.stringify(cloudbErrorBody(status, message))));
}

function sendJson(ctx: MockContext, value: unknown): Promise<void> {
  return sendBytes(ctx, 200, { 'content-type': 'application/json; charset=UTF-8', 'x-mock-instance': ctx.label }, Buffer.from(JSON.stringify(value)));
}

function partsText(parts: Json[]): string {
  return parts.map((p) => (typeof p.text === 'string' ? p.text : p.functionResponse !== undefined ? JSON.stringify(p.functionResponse.response) : '')).join(' ');
}

/** Gemini 3 models: their function calls carry a thought signature, which they want back on each call's part. */
const SIGNS_CALLS = /^gemini-3/;

/** The thought signature the mock puts on a function call (its thought stands for the call itself). */
function callSignature(call: Json): string {
  return reasoningSignature(`${call.name}:${JSON.stringify(call.args ?? {})}`);
}

const THINKING_LEVELS: Readonly<Record<string, number>> = { MINIMAL: 4, LOW: 16, MEDIUM: 128, HIGH: 384 };

/** Gemini 3 and later think at a level; earlier models within a budget (2.5 Pro cannot stop thinking). */
function thinkingConfigRefusal(config: Json | undefined, model: string): string | null {
  if (config === undefined) return null;
  const major = Number(/^gemini-(\d+)/.exec(model)?.[1] ?? 0);
  if (config.thinkingLevel !== undefined && config.thinkingBudget !== undefined) return 'You can only set only one of thinking budget and thinking level.';
  if (config.thinkingLevel !== undefined) {
    if (major < 3) return 'Thinking level is not supported for this model.';
    if (THINKING_LEVELS[String(config.thinkingLevel).toUpperCase()] === undefined) return `Invalid value at 'generation_config.thinking_config.thinking_level' (type.googleapis.com/google.cloud.aiplatform.v1.GenerationConfig.ThinkingConfig.ThinkingLevel), "${String(config.thinkingLevel)}"`;
  }
  if (config.thinkingBudget === 0 && /pro/.test(model)) return 'Budget 0 is invalid. This model only works in thinking mode.';
  return null;
}

/** The thought tokens the mock's model spends as its thinking config asks: a level's fixed count, or a 64th of the budget. */
function thoughtTokensOf(config: Json | undefined): number | undefined {
  if (config === undefined) return undefined;
  if (config.thinkingLevel !== undefined) return THINKING_LEVELS[String(config.thinkingLevel).toUpperCase()];
  return typeof config.thinkingBudget === 'number' && config.thinkingBudget > 0 ? Math.floor(config.thinkingBudget / 64) : 0;
}

/**
 * The fields of the service's Schema (a subset of OpenAPI 3.0) that a function declaration's
 * `parameters` takes; any other is the proto parser's "Unknown name" (JSON Schema's `$schema`,
 * `additionalProperties`, `const`, `exclusiveMinimum`, `$defs`, … as client tools carry them).
 * `parametersJsonSchema` takes a JSON Schema as it is.
 */
const OPENAPI_SCHEMA_FIELDS = new Set(['type', 'format', 'title', 'description', 'nullable', 'default', 'items', 'minItems', 'maxItems', 'enum', 'properties', 'propertyOrdering', 'required', 'minProperties', 'maxProperties', 'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'minimum', 'maximum', 'ref', 'defs']);

function unknownSchemaField(schema: Json, at: string): string | null {
  for (const key of Object.keys(schema)) if (!OPENAPI_SCHEMA_FIELDS.has(key)) return `Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`;
  const nested: Array<[unknown, string]> = [
    ...Object.entries(typeof schema.properties === 'object' && schema.properties !== null ? schema.properties : {}).map(([, value], i): [unknown, string] => [value, `${at}.properties[${i}].value`]),
    [schema.items, `${at}.items`],
    ...(Array.isArray(schema.anyOf) ? schema.anyOf.map((value: unknown, i: number): [unknown, string] => [value, `${at}.any_of[${i}]`]) : []),
  ];
  for (const [value, where] of nested) {
    if (typeof value !== 'object' || value === null) continue;
    const problem = unknownSchemaField(value as Json, where);
    if (problem !== null) return problem;
  }
  return null;
}

/** The service's checks of the declared functions: one schema each, of type object, in the field that takes its dialect. */
function functionDeclarationsRefusal(tools: unknown): string | null {
  if (!Array.isArray(tools)) return null;
  for (const [t, tool] of (tools as Json[]).entries()) {
    for (const [f, declaration] of ((tool?.functionDeclarations ?? []) as Json[]).entries()) {
      const at = `tools[${t}].function_declarations[${f}]`;
      if (declaration.parameters !== undefined && declaration.parametersJsonSchema !== undefined) return `Unable to submit request because \`${declaration.name}\` functionDeclaration can only have one of parameters and parameters_json_schema set.`;
      const schema = declaration.parameters ?? declaration.parametersJsonSchema;
      if (schema === undefined) continue;
      if (typeof schema !== 'object' || schema === null || String(schema.type).toLowerCase() !== 'object') return `Unable to submit request because \`${declaration.name}\` functionDeclaration parameters schema should be of type OBJECT.`;
      if (declaration.parameters !== undefined) {
        const problem = unknownSchemaField(declaration.parameters, `${at}.parameters`);
        if (problem !== null) return problem;
      }
    }
  }
  return null;
}

/** The media Gemini reads inline: images, audio, video, PDFs and plain text. */
const INLINE_TYPES = /^(?:image\/|audio\/|video\/|application\/pdf$|text\/plain$)/;

/** The service's own checks; answers 400 and returns null on a bad body. */
async function parse(ctx: MockContext, model = ''): Promise<Json | null> {
  const body = jsonObject(ctx);
  const bad = async (message: string) => {
    await sendCloudbError(ctx, 400, message);
    return null;
  };
  if (body === null) return bad('Invalid JSON payload received.');
  const thinking = thinkingConfigRefusal((body.generationConfig as Json | undefined)?.thinkingConfig, model);
  if (thinking !== null) return bad(thinking);
  if (!Array.isArray(body.contents) || body.contents.length === 0) return bad('Unable to submit request because it must have at least one contents field.');
  for (const [i, turn] of (body.contents as Json[]).entries()) {
    const inline = (Array.isArray(turn?.parts) ? turn.parts as Json[] : []).find((part) => part?.inlineData !== undefined && !INLINE_TYPES.test(String(part.inlineData.mimeType)));
    if (inline !== undefined) return bad(`Unsupported MIME type: ${String(inline.inlineData.mimeType)} (contents[${i}])`);
  }
  const declarations = functionDeclarationsRefusal(body.tools);
  if (declarations !== null) return bad(declarations);
  let previous: Json | null = null;
  for (const [i, turn] of (body.contents as Json[]).entries()) {
    if (turn.role !== 'user' && turn.role !== 'model') return bad(`Please use a valid role: user, model. (contents[${i}])`);
    if (!Array.isArray(turn.parts) || turn.parts.length === 0) return bad(`Unable to submit request because it has an empty parts field (contents[${i}]).`);
    // Gemini 3 validates each model turn's first function call's signature (of parallel calls only the first carries one).
    const firstCall = turn.role === 'model' ? (turn.parts as Json[]).findIndex((p) => p.functionCall !== undefined) : -1;
    if (SIGNS_CALLS.test(model) && firstCall >= 0 && turn.parts[firstCall].thoughtSignature !== callSignature(turn.parts[firstCall].functionCall)) {
      return bad(`Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${turn.parts[firstCall].functionCall.name}\` , position ${i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`);
    }
    for (const part of turn.parts as Json[]) {
      if (part.functionResponse !== undefined) {
        const called = previous?.role === 'model' && (previous.parts as Json[]).some((p) => p.functionCall?.name === part.functionResponse.name);
        if (!called) return bad('Please ensure that function response turn comes immediately after a function call turn.');
        if (typeof part.functionResponse.response !== 'object' || part.functionResponse.response === null) return bad('functionResponse.response must be an object.');
      }
    }
    previous = turn;
  }
  return body;
}

interface Candidate {
  parts: Json[];
  finishReason: string;
  tokens: number;
}

/** The request's prompt tokens, as the mock counts them: its turns' and system instruction's words, and 3 a turn. */
export function promptTokensOf(body: Json): number {
  let promptTokens = 0;
  for (const turn of body.contents as Json[]) promptTokens += words(partsText(turn.parts)).length + 3;
  if (Array.isArray(body.systemInstruction?.parts)) promptTokens += words(partsText(body.systemInstruction.parts)).length;
  return promptTokens;
}

function answer(ctx: MockContext, body: Json, signsCalls = false): { candidates: Candidate[]; promptTokens: number } {
  const contents = body.contents as Json[];
  const promptTokens = promptTokensOf(body);
  const last = contents.at(-1)!;
  const lastText = partsText(last.parts);
  const declarations: Json[] = (body.tools ?? []).flatMap((t: Json) => t.functionDeclarations ?? []);
  const mode = body.toolConfig?.functionCallingConfig?.mode;
  const answersCall = (last.parts as Json[]).some((p) => p.functionResponse !== undefined);
  const count = Number.isInteger(body.generationConfig?.candidateCount) ? body.generationConfig.candidateCount : 1;
  // Thought summaries, when asked for, restate the prompt, as the messages mock's thinking does.
  const thoughts: Json[] = body.generationConfig?.thinkingConfig?.includeThoughts === true ? [{ text: `[${ctx.label}] thinking about: ${lastText}`, thought: true }] : [];
  const candidates: Candidate[] = [];
  for (let i = 0; i < count; i++) {
    if (declarations.length > 0 && mode !== 'NONE' && !answersCall) {
      const allowed: string[] | undefined = body.toolConfig?.functionCallingConfig?.allowedFunctionNames;
      const fn = declarations.find((d) => allowed === undefined || allowed.includes(d.name)) ?? declarations[0];
      const call = { name: fn.name, args: { query: lastText } };
      candidates.push({ parts: [...thoughts, { functionCall: call, ...(signsCalls ? { thoughtSignature: callSignature(call) } : {}) }], finishReason: 'STOP', tokens: 8 });
      continue;
    }
    const reply = replyFor(ctx.label, answersCall ? `tool said ${lastText}` : lastText, body.generationConfig?.maxOutputTokens ?? null);
    candidates.push({ parts: [...thoughts, ...reply.tokens.map((text) => ({ text }))], finishReason: reply.finishReason === 'length' ? 'MAX_TOKENS' : 'STOP', tokens: reply.tokens.length });
  }
  return { candidates, promptTokens };
}

/** The prompt's cached tokens, as the model's implicit cache finds them: a request repeating an earlier one's system instruction and turns (all but its last) reads them from the cache for 5 minutes. */
function implicitlyCached(cache: MockPromptCache, body: Json, promptTokens: number): number {
  const items: PromptItem[] = [];
  if (body.systemInstruction !== undefined) items.push({ text: JSON.stringify(body.systemInstruction), tokens: words(partsText(body.systemInstruction.parts ?? [])).length, breakpointTtl: 300 });
  for (const turn of body.contents as Json[]) items.push({ text: JSON.stringify(turn), tokens: words(partsText(turn.parts)).length + 3, breakpointTtl: 300 });
  items[items.length - 1] = { ...items.at(-1)!, breakpointTtl: undefined };
  return Math.min(cache.use(items).read, promptTokens);
}

function usage(promptTokens: number, cached: number, candidates: Candidate[], thoughts: number | undefined): Json {
  const out = candidates.reduce((n, c) => n + c.tokens, 0);
  return {
    promptTokenCount: promptTokens, ...(cached > 0 ? { cachedContentTokenCount: cached } : {}), candidatesTokenCount: out,
    ...(thoughts !== undefined ? { thoughtsTokenCount: thoughts } : {}), totalTokenCount: promptTokens + out + (thoughts ?? 0),
  };
}

export async function generateContent(ctx: MockContext, model: string, streamed: boolean, cache: MockPromptCache): Promise<void> {
  const body = await parse(ctx, model);
  if (body === null) return;
  const { candidates, promptTokens } = answer(ctx, body, SIGNS_CALLS.test(model));
  const cached = implicitlyCached(cache, body, promptTokens);
  const thoughts = thoughtTokensOf(body.generationConfig?.thinkingConfig);
  const responseId = vendorId('resp-');
  const createTime = new Date().toISOString();
  if (!streamed) {
    return sendJson(ctx, {
      candidates: candidates.map((c, index) => ({ content: { role: 'model', parts: mergeText(c.parts) }, finishReason: c.finishReason, index })),
      usageMetadata: usage(promptTokens, cached, candidates, thoughts),
      modelVersion: model,
      createTime,
      responseId,
    });
  }
  const chunks: Json[] = [];
  const first = candidates[0];
  first.parts.forEach((part, i) => {
    const final = i === first.parts.length - 1;
    chunks.push({
      candidates: [{ content: { role: 'model', parts: [part] }, ...(final ? { finishReason: first.finishReason } : {}), index: 0 }],
      ...(final ? { usageMetadata: usage(promptTokens, cached, [first], thoughts) } : {}),
      modelVersion: model,
      createTime,
      responseId,
    });
  });
  const alt = new URLSearchParams(ctx.record.query).get('alt');
  if (alt === 'sse') {
    const failure = ctx.step?.streamError;
    const frames = chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`);
    if (failure !== undefined) {
      const code = Object.entries(STATUS_NAMES).find(([, name]) => name === failure.type)?.[0] ?? '500';
      frames.splice(failure.after, frames.length, `data: ${JSON.stringify({ error: { code: Number(code), message: failure.message, status: failure.type } })}\r\n\r\n`);
    }
    return sendEvents(ctx, 200, { 'content-type': 'text/event-stream', 'x-mock-instance': ctx.label }, frames);
  }
  // Without alt=sse the service streams one JSON array.
  return sendEvents(ctx, 200, { 'content-type': 'application/json; charset=UTF-8', 'x-mock-instance': ctx.label },
    chunks.map((c, i) => `${i === 0 ? '[' : ',\r\n'}${JSON.stringify(c)}${i === chunks.length - 1 ? ']' : ''}`));
}

/** A JSON answer's text in one part, after its thoughts. */
function mergeText(parts: Json[]): Json[] {
  const thoughts = parts.filter((p) => p.thought === true);
  const text = parts.filter((p) => p.thought !== true);
  if (text.every((p) => typeof p.text === 'string')) return [...thoughts, { text: text.map((p) => p.text).join('') }];
  return parts;
}

/**
 * An Imagen model's answer: `parameters.sampleCount` images (1 when absent) for its one instance's
 * `prompt`, each its bytes in base64 (`bytesBase64Encoded`), or, with `parameters.storageUri`, where
 * it was written (`gcsUri`); a prompt with "forbidden" in it has its images withheld by the service's
 * filter, each a prediction with its reason only.
 */
function imagesOf(body: Json): Json[] {
  const prompt = String((body.instances as Json[])[0]?.prompt ?? '');
  const parameters = (body.parameters ?? {}) as Json;
  const count = typeof parameters.sampleCount === 'number' ? parameters.sampleCount : 1;
  return Array.from({ length: count }, (_, at) => {
    if (prompt.includes('forbidden')) return { raiFilteredReason: 'Your current safety filter threshold filtered out the generated image.' };
    const image = typeof parameters.storageUri === 'string' ? { gcsUri: `${parameters.storageUri}/sample_${at}.png` } : { bytesBase64Encoded: Buffer.from(`PNG ${prompt} #${at}`.repeat(64)).toString('base64') };
    return { ...image, mimeType: 'image/png' };
  });
}

const COUNT_TOKENS_MEMBERS: ReadonlySet<string> = new Set(['contents', 'systemInstruction', 'tools', 'generationConfig', 'instances', 'model']);

/** `:countTokens`: generateContent's body, answered with its prompt's count and billable characters. */
export async function countTokens(ctx: MockContext): Promise<void> {
  // CountTokensRequest has no tool choice or safety settings: the service refuses a member it does not have.
  const unknown = Object.keys(jsonObject(ctx) ?? {}).find((key) => !COUNT_TOKENS_MEMBERS.has(key));
  if (unknown !== undefined) return sendCloudbError(ctx, 400, `Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`);
  const body = await parse(ctx);
  if (body === null) return;
  const characters = (body.contents as Json[]).reduce((n, turn) => n + billableCharacters(partsText(turn.parts)), 0);
  return sendJson(ctx, { totalTokens: promptTokensOf(body), totalBillableCharacters: characters });
}

export async function predict(ctx: MockContext, model: string): Promise<void> {
  const body = jsonObject(ctx);
  if (body === null || !Array.isArray(body.instances) || body.instances.length === 0) return sendCloudbError(ctx, 400, 'instances must be a non-empty list.');
  if (model.startsWith('imagen-')) return sendJson(ctx, { predictions: imagesOf(body) });
  const dimensions = (body.parameters as Json | undefined)?.outputDimensionality ?? 8;
  const predictions = (body.instances as Json[]).map((instance) => {
    const text = String(instance.content ?? '');
    return { embeddings: { values: [...embeddingOf(text, dimensions)], statistics: { token_count: words(text).length, truncated: false } } };
  });
  const characters = (body.instances as Json[]).reduce((n, instance) => n + billableCharacters(String(instance.content ?? '')), 0);
  return sendJson(ctx, { predictions, metadata: { billableCharacterCount: characters }, deployedModelId: model });
}

/** The characters the service bills of a text: its code points, white space excluded. */
function billableCharacters(text: string): number {
  let count = 0;
  for (const c of text) if (!/\s/.test(c)) count++;
  return count;
}
