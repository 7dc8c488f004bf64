// Shapes shared by the vendor mock's files and the tests that drive it.
import type { IncomingHttpHeaders } from 'node:http';

/** How the exchange for one recorded request ended, seen from the mock's side of the socket. */
export type RequestOutcome = 'finished' | 'client-closed' | 'mock-destroyed';

export interface RecordedRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  /** Raw query string without `?` (empty when absent). */
  query: string;
  headers: IncomingHttpHeaders;
  /** Header names and values in wire order and case, for byte-exact pass-through checks. */
  rawHeaders: string[];
  /** The body decoded as UTF-8. */
  body: string;
  bodyBytes: Buffer;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  /** Client port of the TCP connection: equal ports on two requests mean a reused keep-alive socket. */
  remotePort: number;
  /** The label of the mock instance that served it. */
  instance: string;
  /** Status sent (0 while the response has not started). */
  status: number;
  /** Headers the mock set on its response (Node adds date, connection, keep-alive, transfer-encoding). */
  responseHeaders: Record<string, string>;
  /** Body bytes the mock has written so far (grows while a stream runs). */
  responseBytes: number;
  /** Times the mock's writer found the socket full and waited for 'drain'. */
  drainWaits: number;
  /** Settles when the response socket work is over. */
  outcome: Promise<RequestOutcome>;
}

/** Fields of the vendor's error object that a script may replace. */
export interface VendorErrorFields {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

/**
 * One scripted behaviour. Steps queue up; each request takes the first step that matches it and
 * still has uses left. Auth is checked first, so a 401 never consumes a step.
 */
export interface ScriptStep {
  /** Only requests to this exact path (no query); any path when absent. */
  path?: string;
  /** Only requests with this method; any method when absent. */
  method?: string;
  /** How many matching requests the step serves (default 1). */
  times?: number;
  /** Answer with this status and the vendor's error body for it (or `body` when given). */
  status?: number;
  /** Replaces fields of the generated error body. */
  error?: Partial<VendorErrorFields>;
  /** Answer with this exact body instead of the endpoint's (status defaults to 200). */
  body?: string;
  contentType?: string;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** Sets `retry-after` (seconds or an HTTP date). */
  retryAfter?: number | string;
  /** Sets `retry-after-ms`. */
  retryAfterMs?: number;
  /** Waits this long before sending the status line (for timeouts). */
  delayMs?: number;
  /** Destroys the socket without answering (a reset before the status line). */
  hangUp?: boolean;
  /** Streams: destroys the socket after this many SSE frames. Other bodies: after this many bytes. */
  breakAfter?: number;
  /** Streams: stops sending after this many SSE frames, keeping the socket open. Other bodies: bytes. */
  stallAfter?: number;
  /** Streams: waits this long between SSE frames. */
  frameDelayMs?: number;
  /**
   * Streams of the other families' mocks: an in-band error event (the family's own kind) after this
   * many events, ending the stream. The vendor mock does not use it.
   */
  streamError?: { after: number; type: string; message: string };
}

export interface VendorMockOptions {
  /** Echoed in `x-mock-instance`, in completion texts and in echo bodies (default `vendor-mock`). */
  label?: string;
  /** Bearer keys accepted; `any` accepts every non-empty key (default: [VENDOR_MOCK_KEY]). */
  apiKeys?: readonly string[] | 'any';
  /** Models listed by GET /v1/models. */
  models?: readonly string[];
  /** Port to listen on (default 0: a free one). */
  port?: number;
}

export interface VendorMock {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `url` + `/v1`, what an SDK takes as its base URL. */
  baseURL: string;
  port: number;
  label: string;
  requests: RecordedRequest[];
  /** Queues scripted behaviours. */
  script(...steps: ScriptStep[]): void;
  /** Forgets recorded requests and queued steps. */
  reset(): void;
  /** Stops listening and destroys open connections (stalled streams included). */
  close(): Promise<void>;
}
