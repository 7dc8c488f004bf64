// A protocol-faithful mock of cloud family A: resource deployments under
// `/openai/deployments/{id}/…?api-version=…` with the `api-key` header (or a directory token as
// Bearer), serverless model endpoints at the root and managed ones under `/score` with Bearer auth
// and `azureml-model-deployment`; the realtime API at `/openai/realtime?deployment=…` (its own API
// versions), over a WebSocket. Bodies are the vendor's, so the vendor mock's endpoints answer
// them once the family's URL and auth rules have passed.
import { startMockServer, bearerKey, type MockServer } from '../http/mock-server.ts';
import { sendBytes, withStepHeaders } from '../http/respond.ts';
import { chatCompletions } from '../vendor/chat.ts';
import { textCompletions } from '../vendor/completions.ts';
import type { MockContext } from '../vendor/context.ts';
import { vendorId } from '../vendor/context.ts';
import { embeddings } from '../vendor/embeddings.ts';
import { echo } from '../vendor/echo.ts';
import { realtimeSession } from '../vendor/realtime.ts';
import { vendorError } from '../vendor/vendor-errors.ts';
import type { VendorErrorFields } from '../vendor/types.ts';

export const CLOUDA_MOCK_KEY = 'clouda-mock-key-0123456789';
/** Versions the mock accepts, like the service's published data-plane versions. */
export const CLOUDA_API_VERSIONS: readonly string[] = ['2024-02-01', '2024-06-01', '2024-10-21', '2025-01-01-preview'];
/** Versions of the realtime API (`/openai/realtime`), which the data plane's do not serve. */
export const CLOUDA_REALTIME_API_VERSIONS: readonly string[] = ['2024-10-01-preview', '2024-12-17', '2025-04-01-preview'];
/** Versions that take stream_options; the earlier ones answer 400 for it, as the service does. */
const STREAM_OPTIONS_VERSIONS: readonly string[] = ['2024-10-21', '2025-01-01-preview'];

export interface CloudaMockOptions {
  label?: string;
  /** Deployment id → the model it serves. */
  deployments?: Readonly<Record<string, string>>;
  /** Deployments a managed endpoint hosts (picked with azureml-model-deployment). */
  managedDeployments?: readonly string[];
  apiKeys?: readonly string[];
  port?: number;
}

type Handler = (ctx: MockContext) => Promise<void>;
const ENDPOINTS: Readonly<Record<string, Handler>> = {
  '/chat/completions': chatCompletions,
  '/completions': textCompletions,
  '/embeddings': embeddings,
};

function cloudaHeaders(ctx: MockContext): Record<string, string> {
  return { 'apim-request-id': vendorId('apim-'), 'x-ms-region': 'East US', 'x-mock-instance': ctx.label };
}

function sendCloudaError(ctx: MockContext, status: number, fields: Partial<VendorErrorFields> = {}): Promise<void> {
  const body = vendorError(status, { code: String(status), ...fields });
  return sendBytes(ctx, status, { ...cloudaHeaders(ctx), 'content-type': 'application/json' }, Buffer.from(JSON.stringify(body)));
}

export function startCloudaMock(options: CloudaMockOptions = {}): Promise<MockServer> {
  const deployments = options.deployments ?? { 'chat-prod': 'gpt-mock-4o', 'embed-prod': 'text-embedding-mock' };
  const managed = options.managedDeployments ?? ['blue', 'green'];
  const apiKeys = options.apiKeys ?? [CLOUDA_MOCK_KEY];
  return startMockServer({
    label: options.label ?? 'clouda-mock',
    models: Object.values(deployments),
    port: options.port,
    async authenticate(ctx: MockContext): Promise<boolean> {
      const apiKey = ctx.req.headers['api-key'];
      const bearer = bearerKey(ctx.req.headers.authorization);
      const deploymentRoute = ctx.record.path.startsWith('/openai/');
      // Resource deployments take `api-key` (or a directory token as Bearer); model endpoints take Bearer.
      const key = deploymentRoute ? (typeof apiKey === 'string' ? apiKey : bearer !== null && bearer.startsWith('eyJ') ? 'jwt' : null) : bearer;
      if (key === null) {
        await sendCloudaError(ctx, 401, { message: 'Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.', type: 'invalid_request_error' });
        return false;
      }
      if (key !== 'jwt' && !apiKeys.includes(key)) {
        await sendCloudaError(ctx, 401, { message: 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.', type: 'invalid_request_error' });
        return false;
      }
      return true;
    },
    sendError: sendCloudaError,
    sendBody: (ctx, status, contentType, body) => sendBytes(ctx, status, { ...cloudaHeaders(ctx), 'content-type': contentType }, body),
    route(ctx: MockContext): Promise<void> {
      const { path } = ctx.record;
      const deployment = /^\/openai\/deployments\/([^/]+)(\/.+)$/.exec(path);
      if (deployment !== null) {
        const version = new URLSearchParams(ctx.record.query).get('api-version');
        if (version === null) return sendCloudaError(ctx, 404, { message: 'Resource not found', type: 'invalid_request_error' });
        if (!CLOUDA_API_VERSIONS.includes(version)) return sendCloudaError(ctx, 400, { code: 'BadRequest', message: 'API version not supported' });
        const body = ctx.record.json as { stream_options?: unknown } | undefined;
        if (body?.stream_options !== undefined && !STREAM_OPTIONS_VERSIONS.includes(version)) {
          return sendCloudaError(ctx, 400, { code: null, param: null, type: 'invalid_request_error', message: 'Unrecognized request argument supplied: stream_options' } as Partial<VendorErrorFields>);
        }
        const id = decodeURIComponent(deployment[1]);
        const model = Object.hasOwn(deployments, id) ? deployments[id] : undefined;
        if (model === undefined) {
          return sendCloudaError(ctx, 404, { code: 'DeploymentNotFound', message: 'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.' });
        }
        return serve(ctx, deployment[2], model);
      }
      // The realtime API: a deployment of a realtime model named in the query, on versions of its own.
      if (path === '/openai/realtime') {
        const query = new URLSearchParams(ctx.record.query);
        const version = query.get('api-version');
        if (version === null || !CLOUDA_REALTIME_API_VERSIONS.includes(version)) return sendCloudaError(ctx, 400, { code: 'BadRequest', message: 'API version not supported' });
        const id = query.get('deployment') ?? '';
        const model = Object.hasOwn(deployments, id) ? deployments[id] : undefined;
        if (model === undefined) return sendCloudaError(ctx, 404, { code: 'DeploymentNotFound', message: 'The API deployment for this resource does not exist.' });
        return realtimeSession(ctx, model, cloudaHeaders(ctx));
      }
      if (path.startsWith('/openai/')) return echo(ctx);
      if (path.startsWith('/score/')) {
        const name = ctx.req.headers['azureml-model-deployment'];
        if (typeof name === 'string' && !managed.includes(name)) return sendCloudaError(ctx, 404, { code: 'DeploymentNotFound', message: `No deployment named ${name}.` });
        return serve(ctx, path.slice('/score'.length), typeof name === 'string' ? name : managed[0]);
      }
      return serve(ctx, path, 'serverless-mock-model');
    },
  });
}

/** Hands a vendor-shaped body to the vendor mock's endpoint, as the service does with its own model name. */
function serve(ctx: MockContext, endpoint: string, model: string): Promise<void> {
  const handler = Object.hasOwn(ENDPOINTS, endpoint) ? ENDPOINTS[endpoint] : undefined;
  if (handler === undefined || ctx.record.method !== 'POST') return echo(ctx);
  const body = ctx.record.json;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) (body as Record<string, unknown>).model = model;
  // The family's own headers on top of the vendor mock's.
  ctx.step = { ...(ctx.step ?? {}), headers: { ...withStepHeaders(ctx, cloudaHeaders(ctx)) } };
  return handler(ctx);
}
