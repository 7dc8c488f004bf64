// Cloud family B (`cloudb`, generateContent-shaped). The credential is a service account
// (`cloudb_service_account_json` → signed JWT → OAuth token, cached) or an access token in
// Authorization; the URL comes from `cloudb_project_id` (else the account's project) and
// `cloudb_region`. Chat maps to generateContent (streamGenerateContent with `alt=sse` for streams),
// embeddings to `:predict`, the messages API's create call to a Claude model's rawPredict
// (messages-raw-predict.ts); other paths pass through under the regional API root.
import { GatewayError } from '../../core/errors.ts';
import { HostPolicy } from '../host-policy.ts';
import { chatRequestOf, includeUsage } from '../shared/chat.ts';
import { mappedBody } from '../shared/mapped-body.ts';
import { joinUrl, refuseClientQuery, stringOption } from '../shared/url.ts';
import { manifestEndpoints, missingKey, missingOption, notSupported } from '../shared/vendor-shaped.ts';
import type { EndpointKind, PreparedCall, ProviderAdapter, ProviderCall } from '../types.ts';
import { fromPredictResponse, toPredictRequest, type PredictResponse } from './embeddings.ts';
import { toGenerateContentRequest } from './request.ts';
import { offersTools } from './kept-thinking.ts';
import { mappingWithKept } from '../shared/kept-thinking.ts';
import { fromCloudbError, fromGenerateContentResponse, type GenerateContentResponse } from './response.ts';
import { GenerateContentStreamMapper, generateContentStreamOpening } from './stream.ts';
import { AccessTokens, serviceAccountOf } from './token.ts';
import { messagesCallOf } from '../shared/messages-call.ts';
import { CLAUDE_PUBLISHER_MODEL, messagesCountOf, messagesRawPredictOf, messagesRawPredictResponse } from './messages-raw-predict.ts';
import { countTokensBody, countTokensResponse } from './count-tokens.ts';

const NAME = 'cloudb';
export const CLOUDB_PROVIDER = NAME;
const ENDPOINTS: ReadonlySet<EndpointKind> = manifestEndpoints(NAME);
/** Provisioned-throughput selection header, forwarded as the client sent it (SPEC §5.4). */
export const REQUEST_TYPE_HEADER = 'x-cloudb-ai-llm-request-type';

export interface CloudbOptions {
  hostPolicy?: HostPolicy;
  tokens?: AccessTokens;
}

export function cloudbAdapter(options: CloudbOptions = {}): ProviderAdapter {
  const tokens = options.tokens ?? new AccessTokens({ provider: NAME, hostPolicy: options.hostPolicy ?? HostPolicy.fromEnv() });
  return {
    name: NAME,
    readsBody: (endpoint) => endpoint === 'chat' || endpoint === 'embeddings',
    keepsThinking: offersTools,
    streamOpening: generateContentStreamOpening,
    // A Claude model's rawPredict answers it (messages-raw-predict.ts); Gemini's generateContent, as a chat.
    answersMessages: (model) => CLAUDE_PUBLISHER_MODEL.test(model),
    countsChatTokens: true,
    async prepare(call: ProviderCall): Promise<PreparedCall> {
      if (call.endpoint !== 'passthrough' && !ENDPOINTS.has(call.endpoint)) throw notSupported(NAME, call.endpoint);
      if (call.endpoint !== 'passthrough') refuseClientQuery(NAME, call.path);
      const { options } = call;
      const account = options.cloudb_service_account_json !== undefined ? serviceAccountOf(options.cloudb_service_account_json, NAME) : null;
      const region = stringOption(options, 'cloudb_region');
      if (region === undefined && call.customHost === null) throw missingOption(NAME, 'cloudb_region');
      const location = region ?? 'global';
      if (!/^[a-z0-9-]+$/.test(location)) {
        throw new GatewayError('invalid_provider_option', 'cloudb_region must be a region name such as us-central1.', 'cloudb_region', { provider: NAME });
      }
      const base = call.customHost ?? (location === 'global' ? 'https://aiplatform.googleapis.com/v1' : `https://${location}-aiplatform.googleapis.com/v1`);
      let token: string;
      if (account !== null) token = await tokens.tokenFor(account, call.signal);
      else if (call.apiKey !== null) token = call.apiKey;
      else throw missingKey(NAME);
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      const requestType = call.headers[REQUEST_TYPE_HEADER];
      if (typeof requestType === 'string') headers[REQUEST_TYPE_HEADER] = requestType;
      const messagesCall = call.endpoint === 'passthrough' ? messagesCallOf(call.method, call.path) : null;
      if (call.endpoint === 'passthrough' && messagesCall === null) return { url: joinUrl(base, call.path), method: call.method, headers, body: call.rawBody, response: null };

      const project = stringOption(options, 'cloudb_project_id') ?? account?.projectId;
      if (project === undefined || project === null) throw missingOption(NAME, 'cloudb_project_id');
      // A cached token the provider no longer accepts (revoked, rotated key) must not be reused, even
      // when a fallback discards this answer unread.
      const observe = (status: number) => {
        if (status === 401 && account !== null) tokens.forget(account);
      };
      if (messagesCall !== null) {
        // The messages API's create call (or its count): a Claude model's rawPredict (messages-raw-predict.ts).
        // Its body was parsed by the transport, which reads a messages call's model (inference/messages-as-chat-call.ts).
        const predict = messagesCall === 'create' ? messagesRawPredictOf(call.path, call.body, NAME) : { ...messagesCountOf(call.path, call.body, NAME), streamed: false };
        return {
          url: joinUrl(base, `/projects/${encodeURIComponent(project)}/locations/${location}${predict.path}`),
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', accept: predict.streamed ? 'text/event-stream' : 'application/json' },
          body: predict.body,
          response: messagesRawPredictResponse(NAME, observe),
        };
      }
      const body = call.body ?? {};
      const model = typeof body.model === 'string' && body.model !== '' ? body.model : undefined;
      if (model === undefined) throw new GatewayError('invalid_request_body', `The provider "${NAME}" needs a model.`, 'model');
      const modelPath = `/projects/${encodeURIComponent(project)}/locations/${location}/publishers/google/models/${encodeURIComponent(model)}`;
      Object.assign(headers, { 'content-type': 'application/json' });
      const strict = call.strictVendorCompliance;
      const error = (status: number, errorBody: Buffer) => fromCloudbError(NAME, status, errorBody);
      if (call.endpoint === 'embeddings') {
        return {
          url: joinUrl(base, `${modelPath}:predict`),
          method: 'POST',
          headers,
          body: mappedBody(body, 'cloudb.predict', () => toPredictRequest(body, NAME)),
          response: { provider: NAME, observe, json: (json) => fromPredictResponse(json as PredictResponse, model, body.encoding_format === 'base64', strict), error },
        };
      }
      const chat = chatRequestOf(call.body);
      if (call.countTokens === true) {
        return { url: joinUrl(base, `${modelPath}:countTokens`), method: 'POST', headers: { ...headers, accept: 'application/json' }, body: countTokensBody(toGenerateContentRequest(chat, NAME, call.keptThinking)), response: countTokensResponse(NAME, observe, error) };
      }
      const streamed = chat.stream === true;
      return {
        url: joinUrl(base, streamed ? `${modelPath}:streamGenerateContent?alt=sse` : `${modelPath}:generateContent`),
        method: 'POST',
        headers: { ...headers, accept: streamed ? 'text/event-stream' : 'application/json' },
        body: mappedBody(chat, mappingWithKept('cloudb.generateContent', call.keptThinking), () => toGenerateContentRequest(chat, NAME, call.keptThinking)),
        response: {
          provider: NAME,
          observe,
          json: (json) => fromGenerateContentResponse(json as GenerateContentResponse, model, strict, call.keepThinking),
          ...(streamed ? { stream: () => new GenerateContentStreamMapper({ provider: NAME, model, includeUsage: includeUsage(chat), strict, keepThinking: call.keepThinking }) } : {}),
          error,
        },
      };
    },
  };
}
