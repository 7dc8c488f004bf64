// The two ends of keeping signed reasoning whole through an output transformer (signed-reasoning.ts):
// an answer's blocks the checks rewrote are remembered before the client gets it, and the originals
// go back into a later request that sends those blocks back, for the try it makes (the body the client
// sent is the exchange's again after it: the request log, a cache key of the route, never hold the
// original the client was not shown).
import type { Exchange } from '../../exchange.ts';
import { passThroughDialect, type TextDialect } from '../../metered-pass-through.ts';
import { isObject } from '../own-text/own-text.ts';
import { passedOn } from '../phase-bodies.ts';
import { type TurnMemory, turnScope } from '../../turn-memory/turn-memory.ts';
import { recallOriginals, rememberOriginals } from './reasoning-memory.ts';
import { ENCODED_REASONING, rewrittenReasoning, SIGNED_REASONING } from './signed-reasoning.ts';

/** A request body no signed block can be in: the member name every dialect's signature has. */
const SIGNATURE = Buffer.from('"signature"');

/** The body the client sent, to be the exchange's again once the try went. */
export interface SentBody {
  params: unknown;
  rawBody: Buffer;
}

/**
 * Puts the originals of the rewritten reasoning `x`'s request sends back into the body its try sends;
 * returns the client's body to set back afterwards, or null when nothing was put back.
 */
export async function putBackReasoning(x: Exchange, memory: TurnMemory): Promise<SentBody | null> {
  const rawBody = x.rawBody;
  if (rawBody === null || !passedOn(x)) return null;
  const dialect = passThroughDialect(x);
  const reasoning = dialect === null ? undefined : SIGNED_REASONING[dialect];
  if (reasoning === undefined || (!ENCODED_REASONING.has(dialect!) && !rawBody.includes(SIGNATURE))) return null;
  let params: unknown;
  try {
    params = await x.json();
  } catch {
    // Not JSON: it goes on as it came, and the provider answers it.
    return null;
  }
  if (!isObject(params)) return null;
  const blocks = reasoning.inRequest(params);
  if (blocks.length === 0) return null;
  const originals = await recallOriginals(memory, turnScope(x), blocks);
  if (originals.size === 0) return null;
  const restored = reasoning.restored(params, (block) => originals.get(block.signature) ?? null);
  x.params = restored;
  x.rawBody = Buffer.from(JSON.stringify(restored));
  return { params, rawBody };
}

/** Sets back the body the client sent (see putBackReasoning). */
export function sentBack(x: Exchange, sent: SentBody): void {
  x.params = sent.params;
  x.rawBody = sent.rawBody;
}

/** Remembers what the checks' rewrite of an answer (`answer` into `judged`) changed of its signed reasoning. */
export function rememberRewritten(memory: TurnMemory, x: Exchange, dialect: TextDialect, answer: unknown, judged: unknown): Promise<void> {
  const blocks = rewrittenReasoning(dialect, answer, judged);
  return blocks.length === 0 ? Promise.resolve() : rememberOriginals(memory, turnScope(x), blocks);
}

