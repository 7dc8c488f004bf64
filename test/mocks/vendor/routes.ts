// The endpoints the mock implements; everything else is echoed.
import type { MockContext } from './context.ts';
import { chatCompletions } from './chat.ts';
import { textCompletions } from './completions.ts';
import { embeddings } from './embeddings.ts';
import { listModels, retrieveModel } from './models.ts';
import { speech, transcription, translation } from './audio.ts';
import { imageEdits, imageGenerations } from './images.ts';
import { echo } from './echo.ts';
import { tokenize } from './tokenize.ts';
import { realtime } from './realtime.ts';
import { routeJobs } from './jobs-routes.ts';
import { sendVendorError } from './respond.ts';

type Handler = (ctx: MockContext) => Promise<void>;

const ROUTES: Record<string, Record<string, Handler>> = {
  '/v1/chat/completions': { POST: chatCompletions },
  '/v1/completions': { POST: textCompletions },
  '/v1/embeddings': { POST: embeddings },
  '/v1/models': { GET: listModels },
  '/v1/audio/speech': { POST: speech },
  '/v1/audio/transcriptions': { POST: transcription },
  '/v1/audio/translations': { POST: translation },
  '/v1/images/generations': { POST: imageGenerations },
  '/v1/images/edits': { POST: imageEdits },
  '/v1/realtime': { GET: realtime },
  // A vLLM server's, at its root: the mock stands in for one at a custom_host.
  '/tokenize': { POST: tokenize },
};

const MODEL_PATH = /^\/v1\/models\/([^/]+)$/;

export function route(ctx: MockContext): Promise<void> {
  const { method, path } = ctx.record;
  const byMethod = Object.hasOwn(ROUTES, path) ? ROUTES[path] : undefined;
  if (byMethod !== undefined) {
    const handler = Object.hasOwn(byMethod, method) ? byMethod[method] : undefined;
    if (handler !== undefined) return handler(ctx);
    return sendVendorError(ctx, 405, { message: `Invalid method for URL (${method} ${path})` });
  }
  const model = MODEL_PATH.exec(path);
  if (model !== null && method === 'GET') return retrieveModel(ctx, decodeURIComponent(model[1]));
  return routeJobs(ctx) ?? echo(ctx);
}
