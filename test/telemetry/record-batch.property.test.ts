// Records packed as UTF-8 in shared memory (runtime/core/record-batch.ts) read back as the very texts
// that went in, whatever their characters; a batch refuses exactly the record that does not fit, and
// dropping the oldest leaves the rest in order.
import { Worker } from 'node:worker_threads';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { RecordBatch, recordReader, type SharedRecords } from '../../runtime/core/record-batch.ts';

function textsOf(shared: SharedRecords): string[] {
  const at = recordReader(shared);
  return shared.ends.map((_, i) => at(i));
}

/** Record texts as JSON.stringify makes them: any string, lone surrogates escaped. */
const text = fc.string({ unit: 'binary', maxLength: 60 }).map((s) => JSON.stringify({ s }));

describe('RecordBatch', () => {
  test.prop([fc.array(text, { maxLength: 30 }), fc.integer({ min: 1, max: 600 })], { numRuns: 300 })('takes records while their bytes fit, and gives back exactly those', (texts, capacity) => {
    const batch = new RecordBatch(capacity);
    const taken: string[] = [];
    let used = 0;
    for (const t of texts) {
      const fits = used + Buffer.byteLength(t) <= capacity;
      expect(batch.append(t)).toBe(fits);
      if (fits) {
        taken.push(t);
        used += Buffer.byteLength(t);
      }
    }
    expect(batch.count).toBe(taken.length);
    expect(textsOf(batch.shared())).toEqual(taken);
  });

  test.prop([fc.array(text, { maxLength: 20 }), fc.nat(25), fc.nat(25)], { numRuns: 200 })('dropping the oldest keeps the newest in order', (texts, first, second) => {
    const batch = RecordBatch.of(texts);
    batch.dropOldest(first);
    batch.dropOldest(second);
    const kept = texts.slice(Math.min(texts.length, first + second));
    expect(batch.count).toBe(kept.length);
    expect(textsOf(batch.shared())).toEqual(kept);
  });

  test.prop([fc.array(text, { maxLength: 10 }), fc.array(text, { maxLength: 10 })], { numRuns: 100 })('a cleared batch holds only what came after', (before, after) => {
    const batch = RecordBatch.of([...before, ...after]);
    batch.clear();
    for (const t of after) expect(batch.append(t)).toBe(true);
    expect(textsOf(batch.shared())).toEqual(after);
  });

  it('another thread reads the records in place, without a copy', async () => {
    const texts = ['{"a":"ü"}', '{"b":"😀"}', '{"c":"plain"}'];
    const batch = RecordBatch.of(texts);
    batch.dropOldest(1);
    const shared = batch.shared();
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       parentPort.once('message', (m) => {
         const bytes = Buffer.from(m.buffer);
         let start = m.start;
         const out = m.ends.map((end) => { const t = bytes.toString('utf8', start, end); start = end; return t; });
         bytes[m.start] = 0x5b; // '[': visible to the sender only if the memory is shared
         parentPort.postMessage(out);
       });`,
      { eval: true },
    );
    const read = await new Promise<string[]>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.postMessage(shared);
    });
    await worker.terminate();
    expect(read).toEqual(texts.slice(1));
    expect(textsOf(batch.shared())[0]!.startsWith('[')).toBe(true);
  });
});
