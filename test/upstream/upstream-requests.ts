// UpstreamRequests aimed at the vendor mock, built the way the router will build them.
import type { UpstreamRequest } from '../../runtime/upstream/types.ts';
import { VENDOR_MOCK_KEY } from '../mocks/vendor/index.ts';

const HEADERS = { authorization: `Bearer ${VENDOR_MOCK_KEY}`, 'content-type': 'application/json' };

export function chatStream(origin: string, words: number, signal: AbortSignal = new AbortController().signal): UpstreamRequest {
  const content = Array.from({ length: words }, (_, i) => `w${i}`).join(' ');
  return {
    origin,
    path: '/v1/chat/completions',
    method: 'POST',
    headers: HEADERS,
    body: Buffer.from(JSON.stringify({ model: 'vendor-chat-1', messages: [{ role: 'user', content }], stream: true })),
    signal,
  };
}

export function listModels(origin: string, signal: AbortSignal = new AbortController().signal): UpstreamRequest {
  return { origin, path: '/v1/models', method: 'GET', headers: HEADERS, body: null, signal };
}

/** An embeddings call whose JSON answer is about `inputs` × 40 KB, with a content-length. */
export function bigEmbeddings(origin: string, inputs: number): UpstreamRequest {
  const input = Array.from({ length: inputs }, (_, i) => `text ${i}`);
  return {
    origin,
    path: '/v1/embeddings',
    method: 'POST',
    headers: HEADERS,
    body: Buffer.from(JSON.stringify({ model: 'vendor-embed-1', input, dimensions: 2048 })),
    signal: new AbortController().signal,
  };
}
