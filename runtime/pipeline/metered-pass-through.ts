// The pass-through calls the gateway meters: a family's own chat API called as it is, through the
// pass-through, to a target of that family. The messages API's create call (`POST /v1/messages`,
// `?beta=true` as its coding agents send it) to an `anthropic` target, or to a `cloudc` or `cloudb`
// target, which answers it with a Claude model's invoke or rawPredict in the messages API's shapes
// (as their own Claude calls through the pass-through are read: cloud B's rawPredict and
// streamRawPredict on a Claude model, `…/publishers/anthropic/models/{model}:rawPredict`), cloud B's generateContent
// and streamGenerateContent (`POST /v1/…/models/{model}:generateContent`, as its SDKs call it) to a
// `cloudb` target, and cloud C's converse and converse-stream (`POST /v1/model/{id}/converse`) and a
// Claude model's invoke and invoke-with-response-stream (the messages API's body and answer, as its
// SDK's Bedrock client and the coding agents built on it call) to a `cloudc` target; and cloud B's
// embeddings and image generation (`:predict` on a text embedding model, as its SDK's embedding
// model calls it, or on an Imagen model: its images counted, billed per image). The log
// stage reads their usage in their own dialect, the trace stage names their operation, the hook
// stages judge their text in it. Their token counts generate nothing and are not metered, but carry
// the chat call's body, which the hook stages judge as well. Another model's invoke is in its
// vendor's own format, and the service reports its counts beside any of them: it is metered (the
// `invoke` dialect); its text is read where the gateway knows the format (Amazon Nova's, converse's
// shapes; OpenAI's open-weight models', the chat completions API's; the prompt and completions of
// Titan's text models, Llama's, DeepSeek-R1's; Mistral's text completion or chat completion) and
// judged as the rest of the pass-through otherwise. The rest generate nothing (files, batches), or
// answer in a format each model vendor has its own of (another model's `:predict`: a video model's,
// a multimodal embedding's), and are none of these. Cloud B's and cloud C's name their model in their
// path.
import { ANTHROPIC_PROVIDER } from '../providers/anthropic/index.ts';
import { CLOUDB_PROVIDER } from '../providers/cloudb/index.ts';
import { CLOUDC_PROVIDER } from '../providers/cloudc/index.ts';
import { CLAUDE_MODEL } from '../providers/cloudc/request.ts';
import { CLAUDE_PUBLISHER_MODEL } from '../providers/cloudb/messages-raw-predict.ts';
import type { Exchange } from './exchange.ts';
import type { ChatDialect, UsageDialect } from './log/usage-of.ts';

const MESSAGES_PATH = /^\/messages(?:\?|$)/;
/** The messages API's token count: a create call's body, answered with its input's count. */
const MESSAGES_COUNT_PATH = /^\/messages\/count_tokens(?:\?|$)/;
/** generateContent's token count: its body (contents, system instruction, tools), answered with counts. */
const COUNT_TOKENS_PATH = /^\/[^?]*:countTokens(?:\?|$)/;
/** Cloud C's token count: a converse body wrapped (`{"input": {"converse": …}}`), or an invoke body in base64 (`{"input": {"invokeModel": {"body": …}}}`), answered with `inputTokens`. */
const CONVERSE_COUNT_PATH = /^\/model\/([^/?]+)\/count-tokens(?:\?|$)/;
/** generateContent on a publisher's model, a tuned model's endpoint or any resource that takes it. */
const GENERATE_CONTENT_PATH = /^\/[^?]*:(?:streamGenerateContent|generateContent)(?:\?|$)/;
/** generateContent on a model, which its path names: `…/models/{model}:generateContent`. */
const GENERATE_CONTENT_MODEL = /\/models\/([^/?:]+):(?:streamGenerateContent|generateContent)(?:\?|$)/;
/** converse on the model its path names: an ID, an inference profile or an ARN, percent-encoded. */
const CONVERSE_PATH = /^\/model\/([^/?]+)\/(?:converse|converse-stream)(?:\?|$)/;
/** invoke on the model its path names, in that model vendor's own format. */
const INVOKE_PATH = /^\/model\/([^/?]+)\/(?:invoke|invoke-with-response-stream)(?:\?|$)/;
/** An Amazon Nova understanding model (`amazon.nova-lite-v1:0`, `us.amazon.nova-2-lite-v1:0`), whose invoke takes and answers converse's shapes; not Canvas, Reel or Sonic. */
const NOVA_MODEL = /amazon\.nova-(?:2-)?(?:micro|lite|pro|premier)/;
/** An Amazon Titan text model, whose invoke takes `inputText` and answers `results[].outputText`. */
const TITAN_TEXT_MODEL = /amazon\.titan-text-/;
/** A Meta Llama model, whose invoke takes a `prompt` (its chat template applied by the client) and answers a `generation`. */
const LLAMA_MODEL = /meta\.llama/;
/** DeepSeek-R1 (`us.deepseek.r1-v1:0`), whose invoke takes a `prompt` and answers `choices[].text`. */
const DEEPSEEK_R1_MODEL = /deepseek\.r1/;
/** One of OpenAI's open-weight models (`openai.gpt-oss-120b-1:0`), whose invoke takes and answers the chat completions API's body and answer. */
const OPENAI_CHAT_MODEL = /openai\.gpt-oss-/;
/**
 * A Mistral model whose invoke takes the text completion API (a `prompt`, answered `outputs[].text`:
 * 7B, Mixtral, Large and Small 2402) or the chat completion API (`messages`, answered as the chat
 * endpoint's: Large 2402 and 2407, Pixtral Large), read in the form its body holds; not the later
 * ones (Large 3, Magistral, Ministral), whose format is not read.
 */
const MISTRAL_MODEL = /mistral\.(?:mistral-7b-instruct|mixtral-8x7b-instruct|mistral-large-2402|mistral-small-2402|mistral-large-2407|pixtral-large)/;
/** Whether a Mistral model's invoke body is in the chat completion form (its `messages`), not the text completion form (its `prompt`). */
export function isMistralChatBody(body: unknown): boolean {
  return body !== null && typeof body === 'object' && Array.isArray((body as { messages?: unknown }).messages);
}
/** Cloud B's token count of Claude's models: the messages API's count's body (its model named in it) on one resource. */
const VERTEX_CLAUDE_COUNT_PATH = /^\/[^?]*\/publishers\/anthropic\/models\/count-tokens:rawPredict(?:\?|$)/;
/** rawPredict on a Claude model of cloud B, which its path names: the messages API's body and answer (its stream: streamRawPredict). */
const RAW_PREDICT_PATH = /^\/[^?]*\/publishers\/anthropic\/models\/([^/?:]+):(?:rawPredict|streamRawPredict)(?:\?|$)/;
/** `:predict` on a publisher's model, which its path names: `…/models/{model}:predict`. */
const PREDICT_PATH = /^\/[^?]*\/models\/([^/?:]+):predict(?:\?|$)/;
/**
 * A text embedding model (`text-embedding-005`, `text-multilingual-embedding-002`,
 * `gemini-embedding-001`, `textembedding-gecko@003`), whose `:predict` takes texts and answers vectors
 * with their token counts; not the multimodal one, whose instances are images and video too.
 */
const TEXT_EMBEDDING_MODEL = /^(?!multimodal)[^/]*embedding/;
/** An Imagen model (`imagen-3.0-generate-002`, `imagen-4.0-fast-generate-001`), whose `:predict` takes prompts and answers images, billed per image. */
const IMAGE_MODEL = /^imagen-/;

/** A family's own chat dialect, spoken by the pass-through. */
export type OwnDialect = ChatDialect;

/** A model vendor's own format of invoke on cloud C that the gateway reads (beside a Claude model's, the messages API). */
export type InvokeVendor = 'nova' | 'titan' | 'llama' | 'mistral' | 'deepseek' | 'openaiChat';

/** What a call's text is read in: a family's own chat dialect, or a model vendor's invoke format. */
export type TextDialect = OwnDialect | InvokeVendor;

/** The dialect a metered pass-through call's answer is read in: a chat dialect, cloud B's embeddings or images, or another model's invoke (the service's counts). */
export type MeteredDialect = Exclude<UsageDialect, 'vendor'>;

/**
 * How a request of a family's own call is read: in its dialect, as the body cloud C's token count
 * wraps (a converse body; of a Claude model, its invoke body too), or as cloud B's embedding or image instances.
 */
export type OwnReading = TextDialect | 'converseCount' | 'claudeCount' | 'predict' | 'imagePredict';

/** A family's own call: its path, the family whose targets answer it, the dialect it speaks. */
interface OwnCallBase {
  path: RegExp;
  /** The family whose targets answer it in its dialect; null: any other family's (the vendor-shaped providers answer the messages API's create call as a chat, in its shapes). */
  family: string | null;
  /** What the model the path names must match (invoke: a Claude model, whose invoke speaks messages). */
  model?: RegExp;
  /** A token count: the chat call's body, answered with counts (no text, nothing generated, nothing to meter). */
  counts?: true;
}

/** A family's own chat call or its token count: its request read in its dialect, or as `reads` says. */
interface ChatCall extends OwnCallBase {
  dialect: OwnDialect;
  reads?: OwnReading;
  textless?: never;
}

/** Cloud B's `:predict`, its request read in its dialect: its answer holds no text a check reads, vectors or images. */
interface TextlessCall extends OwnCallBase {
  dialect: 'predict' | 'imagePredict';
  textless: 'vectors' | 'images';
}

/** Another model's invoke: metered by the service's counts; read in its vendor's format where the gateway knows it, else not read. */
interface InvokeCall extends OwnCallBase {
  dialect: 'invoke';
  reads: InvokeVendor | null;
  textless?: never;
}

type OwnCall = ChatCall | TextlessCall | InvokeCall;

const OWN_CALLS: readonly OwnCall[] = [
  { path: MESSAGES_PATH, family: ANTHROPIC_PROVIDER, dialect: 'messages' },
  // A `cloudc` target answers it with a Claude model's invoke, its answer and stream those of the messages API (providers/cloudc/messages-invoke.ts).
  { path: MESSAGES_PATH, family: CLOUDC_PROVIDER, dialect: 'messages' },
  // And a `cloudb` target with a Claude model's rawPredict (providers/cloudb/messages-raw-predict.ts).
  { path: MESSAGES_PATH, family: CLOUDB_PROVIDER, dialect: 'messages' },
  { path: RAW_PREDICT_PATH, family: CLOUDB_PROVIDER, dialect: 'messages', model: CLAUDE_PUBLISHER_MODEL },
  // And any other target as a chat completion, its answer in the messages API's shapes (providers/shared/messages-as-chat.ts).
  { path: MESSAGES_PATH, family: null, dialect: 'messages' },
  { path: GENERATE_CONTENT_PATH, family: CLOUDB_PROVIDER, dialect: 'generateContent' },
  { path: CONVERSE_PATH, family: CLOUDC_PROVIDER, dialect: 'converse' },
  { path: INVOKE_PATH, family: CLOUDC_PROVIDER, dialect: 'messages', model: CLAUDE_MODEL },
  { path: INVOKE_PATH, family: CLOUDC_PROVIDER, dialect: 'invoke', reads: 'nova', model: NOVA_MODEL },
  { path: INVOKE_PATH, family: CLOUDC_PROVIDER, dialect: 'invoke', reads: 'titan', model: TITAN_TEXT_MODEL },
  { path: INVOKE_PATH, family: CLOUDC_PROVIDER, dialect: 'invoke', reads: 'llama', model: LLAMA_MODEL },
  { path: INVOKE_PATH, family: CLOUDC_PROVIDER, dialect: 'invoke', reads: 'mistral', model: MISTRAL_MODEL },
  { path: INVOKE_PATH, family: CLOUDC_PROVIDER, dialect: 'invoke', reads: 'deepseek', model: DEEPSEEK_R1_MODEL },
  { path: INVOKE_PATH, family: CLOUDC_PROVIDER, dialect: 'invoke', reads: 'openaiChat', model: OPENAI_CHAT_MODEL },
  { path: INVOKE_PATH, family: CLOUDC_PROVIDER, dialect: 'invoke', reads: null },
  { path: MESSAGES_COUNT_PATH, family: ANTHROPIC_PROVIDER, dialect: 'messages', counts: true },
  // Answered by cloud C's CountTokens and cloud B's count-tokens rawPredict (providers/*/messages-*.ts), and the latter through the pass-through.
  { path: MESSAGES_COUNT_PATH, family: CLOUDC_PROVIDER, dialect: 'messages', counts: true },
  { path: MESSAGES_COUNT_PATH, family: CLOUDB_PROVIDER, dialect: 'messages', counts: true },
  { path: VERTEX_CLAUDE_COUNT_PATH, family: CLOUDB_PROVIDER, dialect: 'messages', counts: true },
  { path: COUNT_TOKENS_PATH, family: CLOUDB_PROVIDER, dialect: 'generateContent', counts: true },
  // A Claude model's count may wrap its invoke body (the messages API's), which is read too; another model's may not.
  { path: CONVERSE_COUNT_PATH, family: CLOUDC_PROVIDER, dialect: 'converse', counts: true, reads: 'claudeCount', model: CLAUDE_MODEL },
  { path: CONVERSE_COUNT_PATH, family: CLOUDC_PROVIDER, dialect: 'converse', counts: true, reads: 'converseCount' },
  { path: PREDICT_PATH, family: CLOUDB_PROVIDER, dialect: 'predict', model: TEXT_EMBEDDING_MODEL, textless: 'vectors' },
  { path: PREDICT_PATH, family: CLOUDB_PROVIDER, dialect: 'imagePredict', model: IMAGE_MODEL, textless: 'images' },
];

/** The own call `x` is; of `family`'s, when given (one path may be two families' own: the messages API's create call). */
function ownCall(x: Exchange, family?: string): OwnCall | null {
  if (x.endpoint !== 'passthrough' || x.method !== 'POST') return null;
  for (const call of OWN_CALLS) {
    if (family !== undefined && call.family !== null && call.family !== family) continue;
    const match = call.path.exec(x.upstreamPath);
    if (match !== null && (call.model === undefined || call.model.test(match[1]))) return call;
  }
  return null;
}

/** The dialect `x`'s answer is read in when `x`, sent to `provider`, is a metered pass-through call; null for any other. */
export function meteredPassThrough(x: Exchange, provider: string): MeteredDialect | null {
  const call = ownCall(x, provider);
  return call !== null && call.counts !== true ? call.dialect : null;
}

/** How a family's own answer is read: its text in a dialect, or what it holds instead of text (a token count's counts, cloud B's vectors or images). */
export type AnswerReading = TextDialect | 'counts' | 'vectors' | 'images';

/**
 * How `x`'s answer, answered by `provider`, is read: in the family's own chat dialect or the format
 * of another model's invoke that the gateway reads, or as the answer without text it is; null for
 * any other answer (another format, another family's answer, the rest of the pass-through).
 */
export function ownAnswerReading(x: Exchange, provider: string): AnswerReading | null {
  const call = ownCall(x, provider);
  if (call === null) return null;
  if (call.counts === true) return 'counts';
  if (call.dialect === 'invoke') return call.reads;
  return call.textless ?? call.dialect;
}

/**
 * The dialect of the family's own chat call (or its token count) `x`'s path names, whatever target
 * serves it: what the client wrote its body in (the hook stage reads a request's text by it before
 * routing has chosen a target); null for any other call.
 */
export function passThroughDialect(x: Exchange): OwnReading | null {
  const call = ownCall(x);
  if (call === null) return null;
  if (call.textless !== undefined) return call.dialect;
  return call.reads !== undefined ? call.reads : call.dialect;
}

/** streamGenerateContent: without `alt=sse` its answer is one JSON array of the stream's events, sent as they come. */
const STREAM_GENERATE_CONTENT = /:streamGenerateContent(?:\?|$)/;
/** Cloud C's streams, AWS's binary event stream: named by their path, whatever the body says. */
const EVENT_STREAM_PATH = /^\/model\/[^/?]+\/(?:converse-stream|invoke-with-response-stream)(?:\?|$)/;

/**
 * Whether `x` is a pass-through call whose path, not its body, asks for a stream (cloud B's
 * streamGenerateContent, cloud C's converse-stream and invoke-with-response-stream): its client
 * reads a failure as the API's JSON error, never an SSE event, whatever `stream` its body holds.
 */
export function streamsByPath(x: Exchange): boolean {
  return x.endpoint === 'passthrough' && (STREAM_GENERATE_CONTENT.test(x.upstreamPath) || EVENT_STREAM_PATH.test(x.upstreamPath));
}

/** Whether `x` is a generateContent stream, which answers JSON (one array) unless it asked for SSE. */
export function streamsJsonArray(x: Exchange): boolean {
  return passThroughDialect(x) === 'generateContent' && STREAM_GENERATE_CONTENT.test(x.upstreamPath);
}

/** The realtime API's session (a WebSocket, runtime/upstream/tunnel.ts) on the model its query names: `/realtime?model=gpt-realtime`. */
const REALTIME_MODEL = /^\/realtime\?(?:[^#]*&)?model=([^&#]+)/;

/** The model a pass-through generateContent, converse, invoke or predict call names in its path, or a realtime session in its query; null for any other call. */
export function pathModel(x: Exchange): string | null {
  if (x.endpoint !== 'passthrough') return null;
  const path = x.upstreamPath;
  const match = GENERATE_CONTENT_MODEL.exec(path) ?? CONVERSE_PATH.exec(path) ?? INVOKE_PATH.exec(path) ?? PREDICT_PATH.exec(path) ?? RAW_PREDICT_PATH.exec(path) ?? REALTIME_MODEL.exec(path);
  if (match === null) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}
