// A protocol-faithful mock of cloud family C: every request must carry a valid SigV4 signature
// (verified independently here) or a bearer API key; POST /model/{id}/converse answers JSON and
// /converse-stream the binary event stream; a Claude model's /invoke and /invoke-with-response-stream
// the messages API's answer and stream (invoke.ts), a Titan text, Llama, Mistral or Nova model's its vendor's own (vendor-invoke.ts); /count-tokens a converse body's or a Claude
// invoke body's input count (count-tokens.ts); any other path is echoed.
import { startMockServer, bearerKey, type MockServer } from '../http/mock-server.ts';
import { sendBytes } from '../http/respond.ts';
import type { MockContext } from '../vendor/context.ts';
import { echo } from '../vendor/echo.ts';
import { cloudcHeaders, converse, sendCloudcError } from './converse.ts';
import { countTokens } from './count-tokens.ts';
import { invoke, isClaude } from './invoke.ts';
import { invokeVendor, speaksVendorFormat } from './vendor-invoke.ts';
import { MockPromptCache } from '../http/prompt-cache.ts';
import { verifySigV4, type MockCredential } from './sigv4-verifier.ts';

export const CLOUDC_ACCESS_KEY_ID = 'AKIAMOCKGATEWAY00001';
export const CLOUDC_SECRET_ACCESS_KEY = 'mockSecretKey/0123456789abcdefghijklmnopqrst';
export const CLOUDC_SESSION_ACCESS_KEY_ID = 'ASIAMOCKGATEWAY00002';
export const CLOUDC_SESSION_SECRET = 'mockSessionSecret/9876543210zyxwvutsrqpo';
export const CLOUDC_SESSION_TOKEN = 'IQoJb3JpZ2luX2VjEMock//session+token==';
export const CLOUDC_API_KEY = 'cloudc-api-key-mock-0001';
export const CLOUDC_REGION = 'us-east-1';
export const CLOUDC_SERVICE = 'bedrock';
export { encodeMessage, eventMessage, exceptionMessage } from './event-stream.ts';
export { verifySigV4 } from './sigv4-verifier.ts';

export interface CloudcMockOptions {
  label?: string;
  region?: string;
  port?: number;
}

const MODEL_PATH = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream|count-tokens)$/;

export function startCloudcMock(options: CloudcMockOptions = {}): Promise<MockServer> {
  const region = options.region ?? CLOUDC_REGION;
  const credentials = new Map<string, MockCredential>([
    [CLOUDC_ACCESS_KEY_ID, { secretAccessKey: CLOUDC_SECRET_ACCESS_KEY }],
    [CLOUDC_SESSION_ACCESS_KEY_ID, { secretAccessKey: CLOUDC_SESSION_SECRET, sessionToken: CLOUDC_SESSION_TOKEN }],
  ]);
  const promptCache = new MockPromptCache();
  return startMockServer({
    label: options.label ?? 'cloudc-mock',
    models: ['vendorx.chat-mock-v1:0', 'vendorx.chat-mock-lite-v1:0'],
    port: options.port,
    async authenticate(ctx: MockContext): Promise<boolean> {
      const bearer = bearerKey(ctx.req.headers.authorization);
      if (bearer !== null) {
        if (bearer === CLOUDC_API_KEY) return true;
        await sendCloudcError(ctx, 403, 'Authentication failed: Please make sure your API Key is valid.', 'AccessDeniedException');
        return false;
      }
      const { record } = ctx;
      const verdict = verifySigV4({ method: record.method, path: record.path, query: record.query, headers: record.headers, body: record.bodyBytes }, credentials, region, CLOUDC_SERVICE);
      if (verdict.ok) return true;
      await sendCloudcError(ctx, verdict.status, verdict.message, verdict.errorType);
      return false;
    },
    sendError: (ctx, status, fields) => sendCloudcError(ctx, status, fields?.message, fields?.type),
    sendBody: (ctx, status, contentType, body) => sendBytes(ctx, status, { ...cloudcHeaders(ctx), 'content-type': contentType }, body),
    route(ctx: MockContext): Promise<void> {
      const match = MODEL_PATH.exec(ctx.record.path);
      // A Claude model's invoke (invoke.ts) and those of the vendor formats of vendor-invoke.ts are answered; another model's own format is echoed, as any other path.
      const model = match === null ? '' : decodeURIComponent(match[1]);
      if (match === null || (match[2].startsWith('invoke') && !isClaude(model) && !speaksVendorFormat(model))) return echo(ctx);
      if (ctx.record.method !== 'POST') return sendCloudcError(ctx, 405, 'Method not allowed.');
      if (match[2] === 'count-tokens') return countTokens(ctx, decodeURIComponent(match[1]));
      if (match[2].startsWith('invoke') && speaksVendorFormat(model)) return invokeVendor(ctx, model, match[2] === 'invoke-with-response-stream');
      if (match[2].startsWith('invoke')) return invoke(ctx, model, match[2] === 'invoke-with-response-stream', promptCache);
      return converse(ctx, model, match[2] === 'converse-stream', promptCache);
    },
  });
}
