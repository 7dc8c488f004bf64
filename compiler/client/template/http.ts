// The generated client's transport, copied as is into generated/client/http.ts (and `gateway generate
// client --out DIR`): fetch with the gateway key and option headers, a timeout and an AbortSignal per
// call, retries on 429 and 503 that honour Retry-After, the gateway's error body as a typed error, and
// optional checking of every answer against its schema. It imports nothing, so the client has no
// dependencies; it needs a runtime with fetch (Node 18+, Deno, Bun, browsers).

/** The x-gateway-* header names, filled in by the generated client from the gateway's own list. */
export interface HeaderNames {
  apiKey: string;
  traceId: string;
  virtualKey: string;
  config: string;
  metadata: string;
  cacheForceRefresh: string;
  cacheNamespace: string;
  requestTimeout: string;
  forwardHeaders: string;
}

/** The SDK forms of the gateway's request headers. */
export interface GatewayHeaderOptions {
  apiKey?: string;
  virtualKey?: string;
  /** A saved config's ID, or an inline config object. */
  config?: string | Record<string, unknown>;
  traceId?: string;
  metadata?: Record<string, string>;
  cacheForceRefresh?: boolean;
  cacheNamespace?: string;
  /** Milliseconds the gateway may spend on the request. */
  requestTimeout?: number;
  /** Client headers the gateway forwards to the provider. */
  forwardHeaders?: readonly string[];
}

export interface ClientOptions extends GatewayHeaderOptions {
  /** Where the gateway answers, e.g. `http://127.0.0.1:8787` (with or without `/v1`). */
  baseURL: string;
  /** Extra headers on every call. */
  headers?: Record<string, string>;
  /** Milliseconds per attempt before the call is aborted (default 60 000). */
  timeout?: number;
  /** Retries of a 429 or 503 answer (default 2). */
  maxRetries?: number;
  /** Check every JSON answer against its schema and throw a ContractError when it does not match. */
  validateResponses?: boolean;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeout?: number;
  maxRetries?: number;
  headers?: Record<string, string>;
  /** This call's trace ID (x-gateway-trace-id). */
  traceId?: string;
}

/** What an Ajv standalone validator looks like: true when valid, otherwise `errors` says where. */
export type Validator = ((data: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };

export interface Operation {
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Template: `/v1/configs/{configId}`. */
  path: string;
  returns: 'json' | 'text' | 'bytes';
  validate: Validator | null;
  paging: 'cursor' | 'page' | null;
}

export interface CallRequest {
  path?: Record<string, string>;
  query?: object;
  body?: unknown;
  form?: FormData;
}

/** Any answer the gateway gives with a 4xx or 5xx status. */
export class GatewayError<Code extends string = string> extends Error {
  readonly status: number;
  /** The stable code of the gateway's error table, or the provider's code, or null when the body had none. */
  readonly code: Code | null;
  readonly type: string | null;
  readonly param: string | null;
  readonly traceId: string | null;
  /** The parsed body (or its text when it was not JSON). */
  readonly body: unknown;

  constructor(status: number, body: unknown, traceId: string | null) {
    const error = isObject(body) && isObject(body.error) ? body.error : {};
    super(typeof error.message === 'string' ? error.message : `The gateway answered ${status}.`);
    this.name = 'GatewayError';
    this.status = status;
    this.code = typeof error.code === 'string' ? (error.code as Code) : null;
    this.type = typeof error.type === 'string' ? error.type : null;
    this.param = typeof error.param === 'string' ? error.param : null;
    this.traceId = traceId;
    this.body = body;
  }
}

/** An answer that does not match the schema the API promises for it (validateResponses). */
export class ContractError extends Error {
  readonly operationId: string;
  /** JSON pointer of the first mismatch in the answer ('' for the root). */
  readonly pointer: string;
  readonly errors: readonly { instancePath: string; message?: string }[];
  readonly body: unknown;

  constructor(operationId: string, errors: readonly { instancePath: string; message?: string }[], body: unknown) {
    const first = errors[0] ?? { instancePath: '' };
    super(`${operationId}: the answer does not match its schema at ${first.instancePath || '/'}: ${first.message ?? 'invalid'}`);
    this.name = 'ContractError';
    this.operationId = operationId;
    this.pointer = first.instancePath;
    this.errors = errors;
    this.body = body;
  }
}

/** The call took longer than its timeout, or its signal aborted it. */
export class ClientTimeoutError extends Error {
  constructor(operationId: string, timeout: number) {
    super(`${operationId}: no answer within ${timeout} ms.`);
    this.name = 'ClientTimeoutError';
  }
}

/** The x-gateway-* headers for the given options: what a vendor SDK pointed at the gateway should send. */
export function headersFor(names: HeaderNames, options: GatewayHeaderOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  if (options.apiKey !== undefined) headers[names.apiKey] = options.apiKey;
  if (options.virtualKey !== undefined) headers[names.virtualKey] = options.virtualKey;
  if (options.config !== undefined) headers[names.config] = typeof options.config === 'string' ? options.config : JSON.stringify(options.config);
  if (options.traceId !== undefined) headers[names.traceId] = options.traceId;
  if (options.metadata !== undefined) headers[names.metadata] = JSON.stringify(options.metadata);
  if (options.cacheForceRefresh !== undefined) headers[names.cacheForceRefresh] = String(options.cacheForceRefresh);
  if (options.cacheNamespace !== undefined) headers[names.cacheNamespace] = options.cacheNamespace;
  if (options.requestTimeout !== undefined) headers[names.requestTimeout] = String(options.requestTimeout);
  if (options.forwardHeaders !== undefined) headers[names.forwardHeaders] = options.forwardHeaders.join(',');
  return headers;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;
const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);
const MAX_RETRY_WAIT_MS = 60_000;

export class Transport {
  readonly #options: ClientOptions;
  readonly #names: HeaderNames;
  readonly #origin: string;
  readonly #headers: Record<string, string>;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions, names: HeaderNames) {
    this.#options = options;
    this.#names = names;
    // Paths in the API manifest start with /v1 (or /metrics): a baseURL ending in /v1 is taken as the origin.
    this.#origin = options.baseURL.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.#headers = { ...headersFor(names, options), ...options.headers };
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  async call<T>(operation: Operation, request: CallRequest, options: CallOptions = {}): Promise<T> {
    const url = this.#url(operation, request);
    const headers: Record<string, string> = { ...this.#headers, ...options.headers, accept: operation.returns === 'json' ? 'application/json' : '*/*' };
    if (options.traceId !== undefined) headers[this.#names.traceId] = options.traceId;
    let body: string | FormData | undefined;
    if (request.form !== undefined) body = request.form;
    else if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }
    const maxRetries = options.maxRetries ?? this.#options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const timeout = options.timeout ?? this.#options.timeout ?? DEFAULT_TIMEOUT_MS;
    for (let attempt = 0; ; attempt++) {
      const response = await this.#send(operation, url, { method: operation.method, headers, body }, timeout, options.signal);
      if (RETRIED_STATUSES.has(response.status) && attempt < maxRetries) {
        await response.body?.cancel();
        await sleep(retryDelay(response.headers.get('retry-after'), attempt), options.signal);
        continue;
      }
      return this.#read<T>(operation, response);
    }
  }

  /** A list call: awaited, its first page; iterated (`for await`), every page in turn. */
  list<T>(operation: Operation, request: CallRequest, options: CallOptions = {}): ListCall<T> {
    return new ListCall<T>((query) => this.call<T>(operation, { ...request, query }, options), operation.paging, { ...request.query });
  }

  #url(operation: Operation, request: CallRequest): string {
    const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = request.path?.[name];
      if (value === undefined || value === '') throw new TypeError(`${operation.id}: the path parameter ${name} is required.`);
      return encodeURIComponent(value);
    });
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
    }
    const query = search.toString();
    return `${this.#origin}${path}${query === '' ? '' : `?${query}`}`;
  }

  async #send(operation: Operation, url: string, init: RequestInit, timeout: number, signal: AbortSignal | undefined): Promise<Response> {
    const timer = AbortSignal.timeout(timeout);
    try {
      return await this.#fetch(url, { ...init, signal: signal === undefined ? timer : AbortSignal.any([signal, timer]) });
    } catch (error) {
      if (timer.aborted && !(signal?.aborted ?? false)) throw new ClientTimeoutError(operation.id, timeout);
      throw error;
    }
  }

  async #read<T>(operation: Operation, response: Response): Promise<T> {
    const traceId = response.headers.get(this.#names.traceId);
    if (!response.ok) {
      const text = await response.text();
      throw new GatewayError(response.status, parseOrText(text), traceId);
    }
    if (operation.returns === 'text') return (await response.text()) as T;
    if (operation.returns === 'bytes') return new Uint8Array(await response.arrayBuffer()) as T;
    const body: unknown = await response.json();
    if (this.#options.validateResponses === true && operation.validate !== null && !operation.validate(body)) {
      throw new ContractError(operation.id, operation.validate.errors ?? [], body);
    }
    return body as T;
  }
}

/** Awaitable (the first page) and async-iterable (every page) at once. */
export class ListCall<T> implements PromiseLike<T>, AsyncIterable<T> {
  readonly #fetchPage: (query: Record<string, unknown>) => Promise<T>;
  readonly #paging: Operation['paging'];
  readonly #query: Record<string, unknown>;
  #first: Promise<T> | undefined;

  constructor(fetchPage: (query: Record<string, unknown>) => Promise<T>, paging: Operation['paging'], query: Record<string, unknown>) {
    this.#fetchPage = fetchPage;
    this.#paging = paging;
    this.#query = query;
  }

  then<A = T, B = never>(onFulfilled?: ((value: T) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    this.#first ??= this.#fetchPage(this.#query);
    return this.#first.then(onFulfilled, onRejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let query: Record<string, unknown> | null = this.#query;
    while (query !== null) {
      const page: T = await this.#fetchPage(query);
      yield page;
      query = nextQuery(this.#paging, query, page);
    }
  }
}

/** The query of the page after `page`, or null when it was the last. */
function nextQuery(paging: Operation['paging'], query: Record<string, unknown>, page: unknown): Record<string, unknown> | null {
  if (!isObject(page) || !Array.isArray(page.data) || page.data.length === 0) return null;
  if (paging === 'cursor') {
    if (page.has_more !== true) return null;
    const last: unknown = page.data[page.data.length - 1];
    const after = typeof page.last_id === 'string' ? page.last_id : isObject(last) && typeof last.id === 'string' ? last.id : null;
    return after === null ? null : { ...query, after };
  }
  if (paging === 'page') {
    const size = query.page_size;
    if (typeof size !== 'number' || size <= 0 || typeof page.total !== 'number') return null;
    const current = typeof query.current_page === 'number' ? query.current_page : 0;
    return (current + 1) * size < page.total ? { ...query, current_page: current + 1 } : null;
  }
  return null;
}

/** Retry-After in seconds or as an HTTP date; otherwise 0.5 s, 1 s, 2 s … with jitter. Capped at a minute. */
function retryDelay(retryAfter: string | null, attempt: number): number {
  if (retryAfter !== null) {
    const seconds = Number(retryAfter);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - Date.now();
    if (Number.isFinite(ms)) return Math.min(Math.max(ms, 0), MAX_RETRY_WAIT_MS);
  }
  return Math.min(500 * 2 ** attempt * (0.75 + Math.random() / 2), MAX_RETRY_WAIT_MS);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
