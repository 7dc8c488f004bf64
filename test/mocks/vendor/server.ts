// The vendor mock's HTTP server: the shared mock core with the vendor's bearer-key check, error
// bodies and endpoints.
import { bearerKey, maskKey, startMockServer } from '../http/mock-server.ts';
import type { MockContext } from './context.ts';
import { sendBody, sendVendorError } from './respond.ts';
import { route } from './routes.ts';
import type { VendorMock, VendorMockOptions } from './types.ts';

export const VENDOR_MOCK_KEY = 'sk-vendor-mock-key';

export const DEFAULT_MODELS: readonly string[] = [
  'vendor-chat-1',
  'vendor-chat-mini',
  'vendor-instruct-1',
  'vendor-embed-1',
  'vendor-tts-1',
  'vendor-stt-1',
  'vendor-image-1',
];

export async function startVendorMock(options: VendorMockOptions = {}): Promise<VendorMock> {
  const apiKeys = options.apiKeys ?? [VENDOR_MOCK_KEY];
  return startMockServer({
    label: options.label ?? 'vendor-mock',
    models: options.models ?? DEFAULT_MODELS,
    port: options.port,
    async authenticate(ctx: MockContext): Promise<boolean> {
      const key = bearerKey(ctx.req.headers.authorization);
      if (key === null) {
        await sendVendorError(ctx, 401, {
          message:
            "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        });
        return false;
      }
      if (apiKeys !== 'any' && !apiKeys.includes(key)) {
        await sendVendorError(ctx, 401, { message: `Incorrect API key provided: ${maskKey(key)}.` });
        return false;
      }
      return true;
    },
    sendError: sendVendorError,
    sendBody,
    route,
  });
}
