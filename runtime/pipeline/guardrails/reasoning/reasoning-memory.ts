// What the gateway rewrote of the model's signed reasoning (signed-reasoning.ts), kept in the turn
// memory so that the original goes back to the provider when a client sends the rewritten block in a
// later turn: under the block's signature, the rewritten text's digest beside the original text. A
// block is put back only when it comes with both the signature and the very text the gateway gave
// out; any other text stays as the client sent it (the provider judges it).
import { createHash } from 'node:crypto';
import type { TurnMemory } from '../../turn-memory/turn-memory.ts';
import type { RewrittenBlock, SignedText } from './signed-reasoning.ts';

/** Where a block's original is kept, apart from what other features keep. */
const KEY_PREFIX = 'signed:';

function textDigest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** Keeps each rewritten block's original in `scope` (the organisation). */
export function rememberOriginals(memory: TurnMemory, scope: string, blocks: readonly RewrittenBlock[]): Promise<void> {
  return memory.keep(scope, blocks.map((block) => ({ key: KEY_PREFIX + block.signature, value: JSON.stringify([textDigest(block.rewritten), block.original]) })));
}

/** The original text of each of `blocks` the gateway rewrote to that very text in `scope`, by signature; absent for every other. */
export async function recallOriginals(memory: TurnMemory, scope: string, blocks: readonly SignedText[]): Promise<Map<string, string>> {
  const found = await memory.find(scope, blocks.map((block) => KEY_PREFIX + block.signature));
  const originals = new Map<string, string>();
  for (const block of blocks) {
    const value = found.get(KEY_PREFIX + block.signature);
    const kept = value === undefined ? null : parseKept(value);
    if (kept !== null && kept[0] === textDigest(block.text)) originals.set(block.signature, kept[1]);
  }
  return originals;
}

/** A kept value: [rewritten text's digest, original], or null when it is not one. */
function parseKept(value: string): [string, string] | null {
  try {
    const kept: unknown = JSON.parse(value);
    return Array.isArray(kept) && kept.length === 2 && typeof kept[0] === 'string' && typeof kept[1] === 'string' ? [kept[0], kept[1]] : null;
  } catch {
    return null;
  }
}
