// Prompt-cache breakpoints in a chat request. The vendor's own API caches prompt prefixes by itself;
// the messages API and cloud C cache only up to points the request marks. Clients of the vendor
// shape mark them as those gateways' users do: `cache_control` (the messages API's field) on a
// content part, on a message or on a tool. The translations turn each mark into the family's own
// (a block's `cache_control`, a `cachePoint` block after it); a family without marks drops them as
// it drops `prompt_cache_key` (shared/translatable.ts). The shape is checked first
// (schema/requests/chat-completion-translated.json).
import { GatewayError } from '../../core/errors.ts';
import type { ChatContentPart, ChatMessage } from './chat.ts';

/** A breakpoint: cache the prompt up to and including what carries it, for 5 minutes (the default) or an hour. */
export interface CacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

/** The mark a part, message or tool carries; undefined for none (absent or null). */
export function cacheControlOf(holder: unknown): CacheControl | undefined {
  const value = (holder as { cache_control?: CacheControl | null } | null | undefined)?.cache_control;
  return value === null || value === undefined ? undefined : value;
}

/** A run of a message's content that ends at a breakpoint (or at the content's end, unmarked). */
export interface CacheSegment {
  content: string | ChatContentPart[];
  cacheControl: CacheControl | undefined;
}

/**
 * A message's content cut after each marked part, so a translation that joins a message's text
 * into one block can still end a block where the client put each breakpoint. Content without
 * marked parts is one segment, as it was. A mark on the message itself is not here: it ends the
 * message's last block, which may be a tool call (the callers place it).
 */
export function cacheSegments(message: ChatMessage): CacheSegment[] {
  const content = message.content ?? '';
  const segments: CacheSegment[] = [];
  if (Array.isArray(content)) {
    let start = 0;
    for (let i = 0; i < content.length; i++) {
      const mark = cacheControlOf(content[i]);
      if (mark === undefined) continue;
      segments.push({ content: content.slice(start, i + 1), cacheControl: mark });
      start = i + 1;
    }
    if (start < content.length || segments.length === 0) segments.push({ content: start === 0 ? content : content.slice(start), cacheControl: undefined });
  } else {
    segments.push({ content, cacheControl: undefined });
  }
  return segments;
}

/** For a translation that sends a message as one block: the message's own mark, else its last marked part's. */
export function lastCacheControl(message: ChatMessage): CacheControl | undefined {
  const own = cacheControlOf(message);
  if (own !== undefined || !Array.isArray(message.content)) return own;
  return cacheControlOf(message.content.findLast((part) => cacheControlOf(part) !== undefined));
}

/** A mark with nothing before it in its list (an empty first text part, say) caches nothing: refused rather than dropped. */
export function breakpointWithoutContent(provider: string, where: string): GatewayError {
  return new GatewayError('unsupported_parameter', `A cache_control mark on ${where} with no content before it marks nothing to cache for the provider "${provider}": put it on a part that has text.`, 'cache_control');
}
