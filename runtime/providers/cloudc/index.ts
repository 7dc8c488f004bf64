// Cloud family C (`cloudc`, converse-shaped). Requests are signed with SigV4 from
// `cloudc_access_key_id` / `cloudc_secret_access_key` (+ `cloudc_session_token`) in
// `cloudc_region` (or the x-gateway-cloudc-* headers); a plain key in Authorization is sent as the
// service's bearer API key instead. Chat maps to converse / converse-stream (binary event stream);
// the messages API's create call to a Claude model's invoke (messages-invoke.ts); other paths are
// signed and passed through under the runtime endpoint.
import { GatewayError } from '../../core/errors.ts';
import { chatRequestOf, includeUsage } from '../shared/chat.ts';
import { mappedBody } from '../shared/mapped-body.ts';
import { joinUrl, refuseClientQuery, splitUrl, stringOption } from '../shared/url.ts';
import { manifestEndpoints, missingKey, missingOption, notSupported } from '../shared/vendor-shaped.ts';
import type { EndpointKind, PreparedCall, ProviderAdapter, ProviderCall } from '../types.ts';
import { toConverseRequest } from './request.ts';
import { fromConverseError, fromConverseResponse, type ConverseResponse } from './response.ts';
import { signV4 } from './sigv4.ts';
import { ConverseStreamMapper, converseStreamOpening } from './stream.ts';
import { keptConverseThinkingOf } from './kept-thinking.ts';
import { messagesCountOf, messagesCountResponse, messagesInvokeOf, messagesInvokeResponse } from './messages-invoke.ts';
import { messagesCallOf } from '../shared/messages-call.ts';
import { asksThinking, handOver, mappingWithKept } from '../shared/kept-thinking.ts';

const NAME = 'cloudc';
export const CLOUDC_PROVIDER = NAME;
export const SIGNING_SERVICE = 'bedrock';
const ENDPOINTS: ReadonlySet<EndpointKind> = manifestEndpoints(NAME);

export function cloudcAdapter(now: () => Date = () => new Date()): ProviderAdapter {
  return {
    name: NAME,
    readsBody: (endpoint) => endpoint === 'chat',
    keepsThinking: asksThinking,
    streamOpening: converseStreamOpening,
    // A Claude model's invoke answers it (messages-invoke.ts; a name that is no model ID there is refused, saying so); another model's converse, as a chat.
    answersMessages: (model) => /claude/i.test(model),
    prepare(call: ProviderCall): PreparedCall {
      if (call.endpoint !== 'passthrough' && !ENDPOINTS.has(call.endpoint)) throw notSupported(NAME, call.endpoint);
      const { options } = call;
      const accessKeyId = stringOption(options, 'cloudc_access_key_id');
      const secretAccessKey = stringOption(options, 'cloudc_secret_access_key');
      const sessionToken = stringOption(options, 'cloudc_session_token');
      const region = stringOption(options, 'cloudc_region');
      const signing = accessKeyId !== undefined || secretAccessKey !== undefined;
      if (signing && (accessKeyId === undefined || secretAccessKey === undefined)) {
        throw missingOption(NAME, accessKeyId === undefined ? 'cloudc_access_key_id' : 'cloudc_secret_access_key', ' (both keys sign the request)');
      }
      if (!signing && call.apiKey === null) throw missingKey(NAME);
      if (region !== undefined && !/^[a-z0-9-]+$/.test(region)) {
        throw new GatewayError('invalid_provider_option', 'cloudc_region must be a region name such as us-east-1.', 'cloudc_region', { provider: NAME });
      }
      if (region === undefined && (signing || call.customHost === null)) throw missingOption(NAME, 'cloudc_region');
      const base = call.customHost ?? `https://bedrock-runtime.${region}.amazonaws.com`;

      let url: string;
      let body: Buffer | null;
      let headers: Record<string, string>;
      let response: PreparedCall['response'] = null;
      let method = call.method;
      const messagesCall = call.endpoint === 'passthrough' ? messagesCallOf(call.method, call.path) : null;
      if (call.endpoint === 'chat') {
        refuseClientQuery(NAME, call.path);
        const chat = chatRequestOf(call.body);
        const model = typeof chat.model === 'string' && chat.model !== '' ? chat.model : undefined;
        if (model === undefined) throw new GatewayError('invalid_request_body', `The provider "${NAME}" needs a model.`, 'model');
        const streamed = chat.stream === true;
        const strict = call.strictVendorCompliance;
        url = joinUrl(base, `/model/${encodeURIComponent(model)}/${streamed ? 'converse-stream' : 'converse'}`);
        body = mappedBody(chat, mappingWithKept('cloudc.converse', call.keptThinking), () => toConverseRequest(chat, NAME, call.keptThinking));
        method = 'POST';
        headers = { 'content-type': 'application/json', accept: streamed ? 'application/vnd.amazon.eventstream' : 'application/json' };
        response = {
          provider: NAME,
          json: (json) => {
            const answer = json as ConverseResponse;
            handOver(call.keepThinking, () => keptConverseThinkingOf(answer?.output?.message?.content));
            return fromConverseResponse(answer, model, strict);
          },
          ...(streamed ? { stream: () => new ConverseStreamMapper({ provider: NAME, model, includeUsage: includeUsage(chat), strict, keepThinking: call.keepThinking }) } : {}),
          error: (status, errorBody, errorHeaders) => fromConverseError(NAME, status, errorBody, errorHeaders),
        };
      } else if (messagesCall === 'create') {
        // The messages API's create call: a Claude model's invoke (messages-invoke.ts); its body parsed by
        // the transport, which reads a messages call's model (inference/messages-as-chat-call.ts).
        const invoke = messagesInvokeOf(call.path, call.body, call.headers['anthropic-beta'], NAME);
        url = joinUrl(base, invoke.path);
        body = invoke.body;
        headers = { 'content-type': 'application/json', accept: invoke.streamed ? 'application/vnd.amazon.eventstream' : 'application/json' };
        response = messagesInvokeResponse(NAME, invoke.streamed);
      } else if (messagesCall === 'count') {
        // Its token count: the same body's CountTokens.
        const count = messagesCountOf(call.path, call.body, call.headers['anthropic-beta'], NAME);
        url = joinUrl(base, count.path);
        body = count.body;
        headers = { 'content-type': 'application/json', accept: 'application/json' };
        response = messagesCountResponse(NAME);
      } else {
        url = joinUrl(base, call.path);
        body = call.rawBody;
        headers = {};
        const contentType = call.headers['content-type'];
        if (typeof contentType === 'string') headers['content-type'] = contentType;
      }
      if (signing) {
        const wire = splitUrl(url);
        const q = wire.path.indexOf('?');
        const target = { host: new URL(wire.origin).host, path: q < 0 ? wire.path : wire.path.slice(0, q), query: q < 0 ? '' : wire.path.slice(q + 1) };
        Object.assign(headers, signV4({ method, ...target, headers, body }, { accessKeyId: accessKeyId!, secretAccessKey: secretAccessKey!, sessionToken }, { region: region!, service: SIGNING_SERVICE }, now()));
      } else {
        headers.authorization = `Bearer ${call.apiKey}`;
      }
      return { url, method, headers, body, response };
    },
  };
}
