// generateContent's thought signatures through the chat translation (shared/kept-thinking.ts). A
// thinking model's functionCall part carries a `thoughtSignature` (its thought, encrypted), which
// Gemini 3 wants back on that part in the turn that answers the call ("Function call is missing a
// thought_signature"); a chat tool call has no place for it. Kept with each call (the signature, or
// nothing for a call without one: of parallel calls only the first carries it) and put back on the
// functionCall parts of an assistant message making the same calls.
import type { ThinkingCollector } from '../shared/kept-thinking.ts';
import type { KeptThinking } from '../types.ts';
import type { GenerateContentPart } from './request.ts';

/** Reads a functionCall part, by the tool call id the translation gave it: its signature kept with the call (a collector keeps nothing when no call had one). */
export function collectSignedCall(collector: ThinkingCollector, id: string, part: { thoughtSignature?: unknown }): void {
  if (typeof part.thoughtSignature === 'string' && part.thoughtSignature !== '') collector.thinking(part.thoughtSignature);
  collector.toolCall(id);
}

/** An assistant turn's parts with each functionCall part given the signature kept for its call; as they were when the message makes other calls. */
export function withKeptSignatures(parts: GenerateContentPart[], callIds: readonly string[], kept: ReadonlyMap<string, KeptThinking> | null): GenerateContentPart[] {
  const entry = kept === null || callIds.length === 0 ? undefined : kept.get(callIds[0]!);
  if (entry === undefined || entry.toolCallIds.length !== callIds.length || entry.toolCallIds.some((id, i) => callIds[i] !== id)) return parts;
  let call = 0;
  return parts.map((part) => {
    if (!('functionCall' in part)) return part;
    const signature = entry.withCall[call++]?.[0];
    return typeof signature === 'string' ? { ...part, thoughtSignature: signature } : part;
  });
}

/** Whether a chat body can be answered with function calls: it offers tools. */
export function offersTools(body: Record<string, unknown>): boolean {
  return Array.isArray(body.tools) && body.tools.length > 0;
}
