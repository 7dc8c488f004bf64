// The request context of a request that did not come over HTTP (a batch line, the chat call behind
// an emulated Responses request): the headers of the request it stands for, the route of the
// endpoint it calls, and its body, checked by that route's validator when routing reads it, as a
// live request's would be.
import type { IncomingHttpHeaders } from 'node:http';
import * as validators from '../../generated/validators.js';
import type { InferenceContext } from '../inference/inference-request.ts';
import { parseForwardHeaders, parseMetadata, parseRequestTimeout, type Metadata } from '../core/gateway-headers.ts';
import type { RouteSpec } from '../server/match.ts';
import { type GeneratedValidator, validateBody } from '../server/validate.ts';

const VALIDATORS = validators as unknown as Record<string, GeneratedValidator>;

export class DetachedContext implements InferenceContext {
  readonly headers: IncomingHttpHeaders;
  readonly route: RouteSpec;
  readonly forwardHeaders: readonly string[];
  readonly metadata: Metadata;
  readonly requestTimeoutMs: number | null;
  readonly #body: unknown;
  #checked = false;

  /** Throws `invalid_header` when a stored header no longer parses (the create request's were checked). */
  constructor(headers: Readonly<Record<string, string>>, route: RouteSpec, body: unknown) {
    this.headers = { ...headers, 'content-type': 'application/json' };
    this.route = route;
    this.forwardHeaders = parseForwardHeaders(headers['x-gateway-forward-headers']);
    this.metadata = parseMetadata(headers['x-gateway-metadata']);
    this.requestTimeoutMs = parseRequestTimeout(headers['x-gateway-request-timeout']);
    this.#body = body;
  }

  get rawBody(): Buffer {
    return Buffer.from(JSON.stringify(this.#body));
  }

  /** The body, checked against the route's validator once (400 `invalid_request_body`). */
  async json(): Promise<unknown> {
    const name = this.route.bodyValidator;
    if (!this.#checked && name !== undefined) {
      const validator = VALIDATORS[name];
      if (validator === undefined) throw new Error(`no generated validator named ${name}`);
      validateBody(validator, this.#body);
    }
    this.#checked = true;
    return this.#body;
  }
}

/** The route a batch `endpoint` (`/v1/chat/completions`, …) stands for: POST on that path. */
export function routeForEndpoint(routes: readonly RouteSpec[], endpoint: string): RouteSpec {
  const route = routes.find((r) => r.method === 'POST' && r.path === endpoint);
  if (route === undefined) throw new Error(`no POST route for ${endpoint}`);
  return route;
}
