// Rewritten reasoning's originals in the turn memory, on every store: an original comes back for a
// block sent back with its signature and the very text given out, and for nothing else (checked
// against a model, fast-check), only to its organisation.
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { recallOriginals, rememberOriginals } from '../../runtime/pipeline/guardrails/reasoning/reasoning-memory.ts';
import type { TurnMemory } from '../../runtime/pipeline/turn-memory/turn-memory.ts';
import { suiteTurnMemory, TURN_BACKENDS } from '../pipeline/turn-memory-backends.ts';

const ORG = 'org-reasoning-test';

describe.each(TURN_BACKENDS)('rewritten reasoning kept on %s', (backend) => {
  const store = suiteTurnMemory(backend);
  let memory: TurnMemory;
  beforeEach(() => {
    memory = store();
  });

  it('gives back the original of a block sent back with the text given out, and nothing for another text, signature or organisation', async () => {
    const signature = `sig-${randomUUID()}`;
    await rememberOriginals(memory, ORG, [{ signature, original: 'write to jane@example.com', rewritten: 'write to [EMAIL]' }]);
    expect(await recallOriginals(memory, ORG, [{ signature, text: 'write to [EMAIL]' }])).toEqual(new Map([[signature, 'write to jane@example.com']]));
    expect((await recallOriginals(memory, ORG, [{ signature, text: 'write to [EMAIL] (edited)' }])).size).toBe(0);
    expect((await recallOriginals(memory, ORG, [{ signature: `sig-${randomUUID()}`, text: 'write to [EMAIL]' }])).size).toBe(0);
    expect((await recallOriginals(memory, 'another-org', [{ signature, text: 'write to [EMAIL]' }])).size).toBe(0);
  });

  const texts = fc.string({ maxLength: 30, unit: 'binary' });
  const stored = fc.uniqueArray(fc.record({ signature: fc.string({ minLength: 1, maxLength: 20 }), original: texts, rewritten: texts }), { selector: (b) => b.signature, maxLength: 6 });
  test.prop([stored, fc.array(fc.tuple(fc.nat(), fc.boolean(), texts), { maxLength: 8 })], { numRuns: 40 })('recalls exactly what a model of it says', async (blocks, asks) => {
    const run = randomUUID();
    const kept = blocks.map((b) => ({ ...b, signature: `${run}:${b.signature}` }));
    await rememberOriginals(memory, ORG, kept);
    const sent = asks.map(([i, same, other]) => {
      const block = kept[i % Math.max(1, kept.length)];
      return block === undefined ? { signature: `${run}:none`, text: other } : { signature: block.signature, text: same ? block.rewritten : other };
    });
    const expected = new Map<string, string>();
    for (const ask of sent) {
      const block = kept.find((b) => b.signature === ask.signature);
      if (block !== undefined && block.rewritten === ask.text) expected.set(ask.signature, block.original);
    }
    expect(await recallOriginals(memory, ORG, sent)).toEqual(expected);
  });
});
