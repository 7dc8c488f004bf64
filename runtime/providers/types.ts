// What the gateway knows about one provider family: where it lives, how it wants its credential,
// and how a request in the vendor's wire format becomes the provider's (and its answer comes back).
import type { ChatUsage } from './shared/chat-chunks.ts';
import type { OpeningJudge } from './shared/stream-opening.ts';
import type { MaxTokensField } from './shared/messages-as-chat.ts';

/**
 * The gateway endpoints a provider may implement. `other` is audio, images and models; anything
 * else is `passthrough` (forwarded to the provider's base URL as received).
 */
export type EndpointKind = 'chat' | 'completions' | 'embeddings' | 'audio' | 'images' | 'models' | 'passthrough';

/** Provider-specific settings: the leaf's fields (config names, e.g. `clouda_region`) merged over the §5.4 headers. */
export type ProviderOptions = Readonly<Record<string, unknown>>;

/** One upstream call, as the transport hands it to an adapter. */
export interface ProviderCall {
  endpoint: EndpointKind;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path after the gateway's `/v1`, with its query string, e.g. `/chat/completions`. */
  path: string;
  /** The parsed JSON body with override_params applied; set only when `readsBody(endpoint)` said so. */
  body: Record<string, unknown> | undefined;
  /** The client's bytes (override_params applied when there were any). */
  rawBody: Buffer | null;
  /** `api_key`, else the client's `Authorization: Bearer` token; null when neither is there. */
  apiKey: string | null;
  options: ProviderOptions;
  /** custom_host (config or x-gateway-custom-host), already checked against the host policy. */
  customHost: string | null;
  strictVendorCompliance: boolean;
  /** The client headers that may go upstream (for provider headers such as `X-cloudb-AI-LLM-Request-Type`): runtime/pipeline/options.ts. */
  headers: Readonly<Record<string, string>>;
  signal: AbortSignal;
  /** Signed thinking kept from earlier answers, by their first tool call's id, for a translation that puts it back (`keepsThinking`); null: none. */
  keptThinking: ReadonlyMap<string, KeptThinking> | null;
  /** Hears the signed thinking a translated answer carried and its chat shape has no place for; null: nobody keeps it. */
  keepThinking: ((kept: KeptThinking) => void) | null;
  /**
   * A chat call that asks only for its input's token count: the messages API's count_tokens sent as
   * the chat it stands for, to an adapter that counts a chat's tokens (`countsChatTokens`), answered
   * in that API's shape (`{"input_tokens": …}`).
   */
  countTokens?: boolean;
}

/**
 * The signed thinking a translated chat answer carried with its tool calls (the messages API's
 * thinking blocks, converse's reasoning blocks, generateContent's thought signatures), which the chat
 * shape has no place for and the provider wants back unchanged in the turn that answers those calls
 * (providers/shared/kept-thinking.ts).
 */
export interface KeptThinking {
  /** The answer's tool call ids, in order. */
  toolCallIds: string[];
  /**
   * For each tool call, what the family keeps with it: the blocks the provider wrote just before it
   * (the first's: those before the answer's text too), or the signature its part carried.
   */
  withCall: unknown[][];
}

/** What to send upstream, and how to read what comes back. */
export interface PreparedCall {
  /** Absolute URL: origin, path and query. */
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The provider's own headers (credential, version, content type); lower-cased names. */
  headers: Record<string, string>;
  body: Buffer | null;
  /** Null: the provider's status, headers and bytes go to the client untouched. */
  response: ResponseMapping | null;
}

/** Turns a provider answer into the vendor's shape. Each part is optional: absent means untouched. */
export interface ResponseMapping {
  /** Provider name written into mapped error bodies. */
  provider: string;
  /** Sees every answer's status as soon as it arrives, whether its body is then read or discarded. */
  observe?(status: number): void;
  /** 2xx answer to a non-streamed request: provider JSON → vendor JSON. */
  json?(body: unknown): unknown;
  /** 2xx answer to a streamed request: a fresh decoder for the provider's stream. */
  stream?(): StreamMapper;
  /** Non-2xx answer → the gateway error body `{error: {message, type, param, code, provider}}`. */
  error?(status: number, body: Buffer, headers: Readonly<Record<string, string | string[]>>): unknown;
}

/** Decodes a provider stream incrementally into vendor SSE text (`data: {chunk}\n\n` frames). */
export interface StreamMapper {
  /** Consumes some provider bytes; returns the SSE text they complete (may be empty). */
  push(chunk: Buffer): string;
  /**
   * The provider stream ended: the remaining text. It ends with `data: [DONE]` only when the provider
   * finished properly; otherwise with an `event: error` frame.
   */
  end(): string;
  /**
   * The usage the provider reported, in the vendor's shape, once `end` ran; null when it reported
   * none. Known whether or not the client asked for the usage chunk.
   */
  usage(): ChatUsage | null;
}

export interface ProviderAdapter {
  /** Canonical name, echoed in x-gateway-provider and in mapped error bodies. */
  name: string;
  /** Whether `prepare` needs the parsed JSON body for this endpoint (transforms, deployment by model). */
  readsBody(endpoint: EndpointKind, call: Pick<ProviderCall, 'options' | 'strictVendorCompliance'>): boolean;
  /** Builds the upstream request; throws GatewayError for what the provider cannot do or lacks. */
  prepare(call: ProviderCall): PreparedCall | Promise<PreparedCall>;
  /** Whether its chat translation of `body` hears signed thinking (`ProviderCall.keepThinking`) and puts it back (`keptThinking`). */
  keepsThinking?(body: Record<string, unknown>): boolean;
  /**
   * Reads the start of a 2xx answer to a chat or completions request in the family's stream format:
   * a stream the provider opened with an error is that error's answer (shared/stream-opening.ts).
   */
  streamOpening?: OpeningJudge;
  /**
   * Whether it answers the messages API's create call (`POST /v1/messages`) and its token count as
   * itself: for every model (`true`: the messages API's own host, whose calls then go unread), or for
   * the body's `model` (Claude's models on a cloud). Any other call of them goes to it as a chat
   * completion (inference/messages-as-chat-call.ts).
   */
  answersMessages?: true | ((model: string) => boolean);
  /**
   * Whether the provider counts a chat's input tokens itself (cloud B's countTokens of the
   * generateContent body its translation makes, the vendor's Responses API's input count, a vLLM
   * server's /tokenize): the
   * messages API's count_tokens for a model it answers as a chat goes to it so
   * (`ProviderCall.countTokens`); without it that count is refused.
   */
  countsChatTokens?: boolean;
  /** Where its chat API takes a messages call's `max_tokens` (shared/messages-as-chat.ts); `max_tokens` unless said. */
  messagesLimitField?(call: Pick<ProviderCall, 'options'>): MaxTokensField;
}
