// The messages API's own create call passed through to an `anthropic` target (`POST /v1/messages`,
// `?beta=true` as its coding agents send it): the one pass-through call the gateway reads as a chat.
// The log stage meters it, the trace stage names its operation. Its token count
// (`/messages/count_tokens`) and batches generate nothing, and are neither.
import { ANTHROPIC_PROVIDER } from '../providers/anthropic/index.ts';
import type { Exchange } from './exchange.ts';

const MESSAGES_PATH = /^\/messages(?:\?|$)/;

/** Whether `x`, sent to `provider`, is the messages API's create call through the pass-through. */
export function isMessagesCall(x: Exchange, provider: string): boolean {
  return x.endpoint === 'passthrough' && x.method === 'POST' && provider === ANTHROPIC_PROVIDER && MESSAGES_PATH.test(x.upstreamPath);
}
