// Signed reasoning's round trip through a rewrite, per dialect (the messages API, converse): what an
// answer's rewrite changed is found block by block (by signature), and a request sending the rewritten
// answer back, restored from what was found, is the request that sends the original answer back:
// every other block and member as it was, unsigned reasoning left alone; inside cloud C's token count's
// wrapper too.
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { rewrittenReasoning, SIGNED_REASONING } from '../../runtime/pipeline/guardrails/reasoning/signed-reasoning.ts';

type Json = Record<string, any>;
type Piece = { kind: 'reasoning'; text: string; rewritten: string | null; signed: boolean } | { kind: 'text'; text: string } | { kind: 'tool'; id: string };

const DIALECTS = {
  messages: {
    block: (piece: Piece, i: number, text: (p: Piece) => string): Json => piece.kind === 'reasoning'
      ? { type: 'thinking', thinking: text(piece), ...(piece.signed ? { signature: `sig-${i}` } : {}) }
      : piece.kind === 'text' ? { type: 'text', text: piece.text } : { type: 'tool_use', id: piece.id, name: 'f', input: { q: 1 } },
    answer: (content: Json[]): Json => ({ id: 'msg', type: 'message', role: 'assistant', content }),
    request: (content: Json[]): Json => ({ model: 'm', max_tokens: 9, messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'r' }] }] }),
  },
  converse: {
    block: (piece: Piece, i: number, text: (p: Piece) => string): Json => piece.kind === 'reasoning'
      ? { reasoningContent: { reasoningText: { text: text(piece), ...(piece.signed ? { signature: `sig-${i}` } : {}) } } }
      : piece.kind === 'text' ? { text: piece.text } : { toolUse: { toolUseId: piece.id, name: 'f', input: {} } },
    answer: (content: Json[]): Json => ({ output: { message: { role: 'assistant', content } }, stopReason: 'tool_use' }),
    request: (content: Json[]): Json => ({ messages: [{ role: 'user', content: [{ text: 'q' }] }, { role: 'assistant', content }, { role: 'user', content: [{ toolResult: { toolUseId: 't', content: [{ text: 'r' }] } }] }] }),
  },
} as const;

const text = fc.string({ maxLength: 20 });
const piece: fc.Arbitrary<Piece> = fc.oneof(
  fc.record({ kind: fc.constant('reasoning' as const), text, rewritten: fc.option(text, { nil: null }), signed: fc.boolean() }),
  fc.record({ kind: fc.constant('text' as const), text }),
  fc.record({ kind: fc.constant('tool' as const), id: fc.string({ minLength: 1, maxLength: 5 }) }),
);

describe.each(Object.keys(DIALECTS) as Array<keyof typeof DIALECTS>)('signed reasoning in %s', (dialect) => {
  const shapes = DIALECTS[dialect];
  test.prop([fc.array(piece, { maxLength: 6 })], { numRuns: 200 })('a rewritten answer sent back is restored to the original sent back', (pieces) => {
    const original = pieces.map((p, i) => shapes.block(p, i, (r) => (r as { text: string }).text));
    const given = pieces.map((p, i) => shapes.block(p, i, (r) => (r.kind === 'reasoning' && r.rewritten !== null ? r.rewritten : (r as { text: string }).text)));
    const found = rewrittenReasoning(dialect, shapes.answer(original), shapes.answer(given));
    const expected = pieces.flatMap((p, i) => (p.kind === 'reasoning' && p.signed && p.rewritten !== null && p.rewritten !== p.text ? [{ signature: `sig-${i}`, original: p.text, rewritten: p.rewritten }] : []));
    expect(found).toEqual(expected);

    const reasoning = SIGNED_REASONING[dialect]!;
    const sentBack = shapes.request(given);
    const restored = reasoning.restored(sentBack, (block) => found.find((f) => f.signature === block.signature && f.rewritten === block.text)?.original ?? null);
    expect(restored).toEqual(shapes.request(original.map((block, i) => {
      // An unsigned block the rewrite changed stays as the client sent it.
      const p = pieces[i]!;
      return p.kind === 'reasoning' && !p.signed ? given[i]! : block;
    })));
    // Nothing to put back: the very same object.
    expect(reasoning.restored(sentBack, () => null)).toBe(sentBack);
    expect(reasoning.inRequest(sentBack).length).toBe(pieces.filter((p) => p.kind === 'reasoning' && p.signed).length);

    // Cloud C's token count of the same body (converse's in `input.converse`, a Claude model's invoke body in base64) is restored inside its wrapper.
    const [count, wrap, unwrap] = dialect === 'converse'
      ? ['converseCount' as const, (body: Json) => ({ input: { converse: body } }), (count: Json) => count.input.converse]
      : ['claudeCount' as const, (body: Json) => ({ input: { invokeModel: { body: Buffer.from(JSON.stringify(body)).toString('base64') } } }), (count: Json) => JSON.parse(Buffer.from(count.input.invokeModel.body, 'base64').toString())];
    const counted = SIGNED_REASONING[count]!;
    expect(counted.inRequest(wrap(sentBack))).toEqual(reasoning.inRequest(sentBack));
    expect(unwrap(counted.restored(wrap(sentBack), (block) => found.find((f) => f.signature === block.signature && f.rewritten === block.text)?.original ?? null))).toEqual(restored);
  });
});
