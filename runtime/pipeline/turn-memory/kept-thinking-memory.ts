// The signed thinking a translated chat answer carried before its tool calls (KeptThinking:
// providers/anthropic/kept-thinking.ts), kept in the turn memory by the answer's first tool call id
// for the organisation that asked, and found again when a later request's assistant message makes
// those calls, so that the translation puts the thinking back where the provider wants it.
import type { Exchange } from '../exchange.ts';
import { type TurnMemory, turnScope } from './turn-memory.ts';
import type { KeptThinking } from '../../providers/types.ts';

/** Where an answer's thinking is kept, apart from what other features keep. */
const KEY_PREFIX = 'thinking:';

/**
 * Keeps an answer's thinking (not awaited: the answer goes on; a store that fails logs itself), and
 * notes it on the try, so that a cached answer carries it (keepAgain).
 */
export function keeper(memory: TurnMemory, x: Exchange): (kept: KeptThinking) => void {
  const scope = turnScope(x);
  return (kept) => {
    void memory.keep(scope, [entryOf(kept)]);
    const tried = x.upstreamTry;
    if (tried !== null) (tried.keptThinking ??= []).push(kept);
  };
}

/**
 * Keeps again, for the organisation a cached answer is now served to, the thinking the answer's
 * provider handed over when it was stored: its tool calls are the client's to answer, whenever and
 * whoever the cache serves them to, and the thinking must be found then (a day from this use).
 */
export function keepAgain(memory: TurnMemory, x: Exchange, kept: readonly KeptThinking[]): void {
  void memory.keep(turnScope(x), kept.map(entryOf));
}

/** An answer's thinking as the turn memory keeps it: by its first tool call id. */
function entryOf(kept: KeptThinking): { key: string; value: string } {
  return { key: KEY_PREFIX + kept.toolCallIds[0]!, value: JSON.stringify(kept) };
}

/** The first tool call id of each assistant message that makes calls: what kept thinking is looked for by. */
export function calledIds(body: Record<string, unknown>): string[] {
  const ids: string[] = [];
  if (!Array.isArray(body.messages)) return ids;
  for (const message of body.messages as unknown[]) {
    if (message === null || typeof message !== 'object') continue;
    const { role, tool_calls: calls } = message as { role?: unknown; tool_calls?: unknown };
    if (role !== 'assistant' || !Array.isArray(calls) || calls.length === 0) continue;
    const id = (calls[0] as { id?: unknown } | null)?.id;
    if (typeof id === 'string' && id !== '') ids.push(id);
  }
  return ids;
}

/** The thinking kept for the calls `ids` (calledIds) name, by first call id; null when none is kept. */
export async function keptFor(memory: TurnMemory, x: Exchange, ids: readonly string[]): Promise<ReadonlyMap<string, KeptThinking> | null> {
  const found = await memory.find(turnScope(x), ids.map((id) => KEY_PREFIX + id));
  const kept = new Map<string, KeptThinking>();
  for (const id of ids) {
    const value = found.get(KEY_PREFIX + id);
    const entry = value === undefined ? null : parseKept(value);
    if (entry !== null) kept.set(id, entry);
  }
  return kept.size === 0 ? null : kept;
}

function parseKept(value: string): KeptThinking | null {
  try {
    const kept: unknown = JSON.parse(value);
    return isKeptThinking(kept) ? kept : null;
  } catch {
    return null;
  }
}

/** Whether a value read back (from the turn memory, a cached answer) has KeptThinking's shape. */
export function isKeptThinking(value: unknown): value is KeptThinking {
  const kept = value as Partial<KeptThinking> | null;
  return typeof kept === 'object' && kept !== null && Array.isArray(kept.toolCallIds) && kept.toolCallIds.length > 0 && kept.toolCallIds.every((id) => typeof id === 'string')
    && Array.isArray(kept.withCall) && kept.withCall.length === kept.toolCallIds.length && kept.withCall.every(Array.isArray);
}
