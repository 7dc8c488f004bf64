// The job record kinds (files, batches with their line results and lease, stored responses) on
// SQLite and PostgreSQL: one suite, both backends (docs/store.md, "Adding a record kind").
import { randomUUID } from 'node:crypto';
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewBatch } from '../../runtime/store/batch-store.ts';
import type { StoredResponseRecord } from '../../runtime/store/response-store.ts';
import { FileStorageFull } from '../../runtime/store/file-store.ts';
import { FILE_CHUNK_BYTES } from '../../runtime/store/sql/sql-file-store.ts';
import { BACKENDS, storeForSuite } from '../store/backends.ts';
import { ResponseRetention } from '../../runtime/jobs/response-retention.ts';
import { silentLogger } from '../../runtime/core/log.ts';

function newBatch(org: string, extra: Partial<NewBatch> = {}): NewBatch {
  return {
    id: `batch_${randomUUID()}`,
    organisationId: org,
    endpoint: '/v1/chat/completions',
    inputFileId: 'file-x',
    contentFileId: 'file-x',
    completionWindow: 'immediate',
    expiresAt: 2_000_000_000,
    metadata: { k: 'v' },
    route: 'sealed',
    leaseOwner: 'owner-a',
    leaseExpiresMs: Date.now() + 60_000,
    ...extra,
  };
}

describe.each(BACKENDS)('job records on %s', (backend) => {
  const suite = storeForSuite(backend, { beforeAll, afterAll });

  it('keeps file contents byte for byte across chunks, per organisation', async () => {
    const org = randomUUID();
    const content = Buffer.alloc(FILE_CHUNK_BYTES * 2 + 17);
    for (let i = 0; i < content.length; i++) content[i] = (i * 31) & 0xff;
    const file = await suite.store.files.create({ organisationId: org, purpose: 'fine-tune', filename: 'a.jsonl', content });
    expect(file).toMatchObject({ organisationId: org, purpose: 'fine-tune', filename: 'a.jsonl', bytes: content.length });
    expect((await suite.store.files.content(org, file.id))?.equals(content)).toBe(true);
    expect(await suite.store.files.get(randomUUID(), file.id)).toBeNull();
    expect(await suite.store.files.content(randomUUID(), file.id)).toBeNull();
    expect(await suite.store.files.delete(randomUUID(), file.id)).toBe(false);
    expect(await suite.store.files.delete(org, file.id)).toBe(true);
    expect(await suite.store.files.get(org, file.id)).toBeNull();
    expect(await suite.store.files.delete(org, file.id)).toBe(false);
    const empty = await suite.store.files.create({ organisationId: org, purpose: 'batch', filename: 'e.jsonl', content: Buffer.alloc(0) });
    expect((await suite.store.files.content(org, empty.id))?.length).toBe(0);
  });

  it('keeps an organisation\'s files within a storage limit: to the byte, per organisation, room again after a delete', async () => {
    const org = randomUUID();
    const file = (bytes: number, organisationId = org) => ({ organisationId, purpose: 'batch' as const, filename: 'q.jsonl', content: Buffer.alloc(bytes, 1) });
    const first = await suite.store.files.create(file(600), 1000);
    await suite.store.files.create(file(400), 1000);
    const full = await suite.store.files.create(file(1), 1000).catch((error: unknown) => error);
    expect(full).toBeInstanceOf(FileStorageFull);
    expect(full).toMatchObject({ storedBytes: 1000, maxStoredBytes: 1000 });
    expect(await suite.store.files.storedBytes(org)).toBe(1000);
    expect(await suite.store.files.storedBytes(randomUUID())).toBe(0);
    // Nothing of the refused file was kept.
    expect((await suite.store.files.list(org, { limit: 10, order: 'desc' })).items.map((f) => f.bytes)).toEqual([400, 600]);
    // Another organisation has its own room; no limit (0) is no check.
    await suite.store.files.create(file(1000, randomUUID()), 1000);
    await suite.store.files.create(file(5), 0);
    expect(await suite.store.files.delete(org, first.id)).toBe(true);
    await suite.store.files.create(file(595), 1000);
  });

  it('lets uploads racing each other past a storage limit together never', async () => {
    const org = randomUUID();
    const settled = await Promise.allSettled(Array.from({ length: 8 }, () => suite.store.files.create({ organisationId: org, purpose: 'batch', filename: 'race.jsonl', content: Buffer.alloc(FILE_CHUNK_BYTES + 1, 2) }, 3 * (FILE_CHUNK_BYTES + 1))));
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(3);
    for (const refused of settled.filter((s) => s.status === 'rejected')) expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(FileStorageFull);
    expect((await suite.store.files.list(org, { limit: 10, order: 'desc' })).items).toHaveLength(3);
  });

  it('reads a file deleted while it is read as gone or whole, never in part', async () => {
    const org = randomUUID();
    const content = Buffer.alloc(FILE_CHUNK_BYTES * 3 + 5, 7);
    for (let round = 0; round < 3; round++) {
      const file = await suite.store.files.create({ organisationId: org, purpose: 'batch', filename: 'r.jsonl', content });
      // The read goes a chunk at a time with the event loop let in between, so the delete can land mid-read.
      const [read] = await Promise.all([suite.store.files.content(org, file.id), suite.store.files.delete(org, file.id)]);
      expect(read === null || read.equals(content)).toBe(true);
    }
  });

  it('counts what an organisation\'s files take, to the byte, through uploads and deletes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('create' as const), org: fc.integer({ min: 0, max: 1 }), bytes: fc.integer({ min: 0, max: 3000 }) }),
            fc.record({ op: fc.constant('delete' as const), org: fc.integer({ min: 0, max: 1 }), pick: fc.nat() }),
          ),
          { maxLength: 10 },
        ),
        async (ops) => {
          const orgs = [randomUUID(), randomUUID()];
          const created: Array<{ id: string; org: number; bytes: number; deleted: boolean }> = [];
          for (const step of ops) {
            if (step.op === 'create') {
              const file = await suite.store.files.create({ organisationId: orgs[step.org], purpose: 'batch', filename: 'p.jsonl', content: Buffer.alloc(step.bytes, 7) });
              created.push({ id: file.id, org: step.org, bytes: step.bytes, deleted: false });
            } else {
              const target = created[step.pick % Math.max(created.length, 1)];
              if (target === undefined) continue;
              // Another organisation's delete changes nothing.
              const deleted = await suite.store.files.delete(orgs[step.org], target.id);
              expect(deleted).toBe(step.org === target.org && !target.deleted);
              if (deleted) target.deleted = true;
            }
            for (const [index, org] of orgs.entries()) {
              const expected = created.filter((f) => f.org === index && !f.deleted).reduce((sum, f) => sum + f.bytes, 0);
              expect(await suite.store.files.storedBytes(org)).toBe(expected);
            }
          }
        },
      ),
      { numRuns: backend === 'postgres' ? 8 : 15 },
    );
  });

  it('pages through files in either order, each exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 5 }), fc.constantFrom('asc', 'desc' as const), async (count, limit, order) => {
        const org = randomUUID();
        const ids: string[] = [];
        for (let i = 0; i < count; i++) ids.push((await suite.store.files.create({ organisationId: org, purpose: 'batch', filename: `${i}.jsonl`, content: Buffer.from('{}\n') })).id);
        const seen: string[] = [];
        let after: string | undefined;
        for (let pages = 0; pages <= count + 1; pages++) {
          const page = await suite.store.files.list(org, { after, limit, order });
          expect(page.afterFound).toBe(true);
          seen.push(...page.items.map((f) => f.id));
          if (!page.hasMore) break;
          after = page.items[page.items.length - 1].id;
        }
        expect(seen).toEqual(order === 'asc' ? ids : [...ids].reverse());
      }),
      { numRuns: backend === 'postgres' ? 8 : 15 },
    );
    const missing = await suite.store.files.list(randomUUID(), { after: 'file-elsewhere', limit: 5, order: 'desc' });
    expect(missing).toEqual({ items: [], hasMore: false, afterFound: false });
  });

  it('filters files by purpose', async () => {
    const org = randomUUID();
    await suite.store.files.create({ organisationId: org, purpose: 'batch', filename: 'b.jsonl', content: Buffer.from('x') });
    const ft = await suite.store.files.create({ organisationId: org, purpose: 'fine-tune', filename: 'f.jsonl', content: Buffer.from('y') });
    const page = await suite.store.files.list(org, { limit: 10, order: 'desc', purpose: 'fine-tune' });
    expect(page.items.map((f) => f.id)).toEqual([ft.id]);
  });

  it('leases a batch to one owner at a time and hands it over when it expires', async () => {
    const org = randomUUID();
    const now = Date.now();
    const batch = await suite.store.batches.create(newBatch(org, { leaseOwner: 'a', leaseExpiresMs: now + 1000 }));
    expect(batch).toMatchObject({ status: 'validating', leaseOwner: 'a', metadata: { k: 'v' }, requestCounts: { total: 0, completed: 0, failed: 0 } });
    expect(await suite.store.batches.claim(batch.id, 'b', now, 1000)).toBeNull();
    expect(await suite.store.batches.claimable(now, 1000)).not.toContain(batch.id);
    expect(await suite.store.batches.claimable(now + 2000, 1000)).toContain(batch.id);
    expect((await suite.store.batches.claim(batch.id, 'b', now + 2000, 1000))?.leaseOwner).toBe('b');
    expect(await suite.store.batches.renew(batch.id, 'a', now + 2000, 1000)).toBeNull();
    expect(await suite.store.batches.startRunning(batch.id, 'a', 3, 100)).toBeNull();
    expect(await suite.store.batches.renew(batch.id, 'b', now + 2000, 1000)).toBe('validating');
    await suite.store.batches.release(batch.id, 'b');
    expect((await suite.store.batches.load(batch.id))?.leaseOwner).toBeNull();
  });

  it('records each line once, counts while running, and settles into output and error files in input order', async () => {
    const org = randomUUID();
    const batch = await suite.store.batches.create(newBatch(org));
    const running = await suite.store.batches.startRunning(batch.id, 'owner-a', 4, 111);
    expect(running).toMatchObject({ status: 'in_progress', inProgressAt: 111, requestCounts: { total: 4, completed: 0, failed: 0 } });
    expect(await suite.store.batches.recordResult(batch.id, { lineIndex: 2, outcome: 'output', line: '{"n":2}' })).toBe(true);
    expect(await suite.store.batches.recordResult(batch.id, { lineIndex: 2, outcome: 'error', line: '{"again":2}' })).toBe(false);
    expect(await suite.store.batches.recordResult(batch.id, { lineIndex: 0, outcome: 'output', line: '{"n":0}' })).toBe(true);
    expect(await suite.store.batches.recordResult(batch.id, { lineIndex: 3, outcome: 'error', line: '{"n":3}' })).toBe(true);
    expect(await suite.store.batches.recordResult(batch.id, { lineIndex: 1, outcome: 'error', line: '{"n":1}' })).toBe(true);
    expect([...(await suite.store.batches.doneLines(batch.id))].sort()).toEqual([0, 1, 2, 3]);
    expect((await suite.store.batches.get(org, batch.id))?.requestCounts).toEqual({ total: 4, completed: 2, failed: 2 });
    expect((await suite.store.batches.markFinalizing(batch.id, 'owner-a', 112))?.finalizingAt).toBe(112);
    expect(await suite.store.batches.settle(batch.id, 'intruder', 'completed', 113)).toBeNull();
    const settled = await suite.store.batches.settle(batch.id, 'owner-a', 'completed', 113);
    expect(settled).toMatchObject({ status: 'completed', completedAt: 113, leaseOwner: null, requestCounts: { total: 4, completed: 2, failed: 2 } });
    expect((await suite.store.files.content(org, settled!.outputFileId!))?.toString()).toBe('{"n":0}\n{"n":2}\n');
    expect((await suite.store.files.content(org, settled!.errorFileId!))?.toString()).toBe('{"n":1}\n{"n":3}\n');
    expect(await suite.store.batches.doneLines(batch.id)).toEqual(new Set());
    expect(await suite.store.batches.settle(batch.id, 'owner-a', 'completed', 114)).toBeNull();
    // A late result (from a process that lost the batch) is not kept once the batch settled.
    expect(await suite.store.batches.recordResult(batch.id, { lineIndex: 1, outcome: 'output', line: '{}' })).toBe(false);
    expect(await suite.store.batches.doneLines(batch.id)).toEqual(new Set());
  });

  it('cancels only validating and in-progress batches, once', async () => {
    const org = randomUUID();
    const batch = await suite.store.batches.create(newBatch(org));
    expect(await suite.store.batches.requestCancel(randomUUID(), batch.id, 5)).toBeNull();
    const first = await suite.store.batches.requestCancel(org, batch.id, 5);
    expect(first).toMatchObject({ changed: true, record: { status: 'cancelling', cancellingAt: 5 } });
    const again = await suite.store.batches.requestCancel(org, batch.id, 6);
    expect(again).toMatchObject({ changed: false, record: { status: 'cancelling', cancellingAt: 5 } });
    // A batch cancelled while validating records its line count but stays cancelling.
    expect(await suite.store.batches.startRunning(batch.id, 'owner-a', 2, 7)).toMatchObject({ status: 'cancelling', inProgressAt: null });
    expect(await suite.store.batches.settle(batch.id, 'owner-a', 'cancelled', 8)).toMatchObject({ status: 'cancelled', cancelledAt: 8, outputFileId: null, errorFileId: null });
  });

  it('fails a batch with its errors, or cancels it when it was cancelling', async () => {
    const org = randomUUID();
    const errors = [{ code: 'invalid_url', message: 'm', param: 'url', line: 2 }];
    const a = await suite.store.batches.create(newBatch(org));
    expect(await suite.store.batches.fail(a.id, 'owner-a', errors, 9)).toMatchObject({ status: 'failed', failedAt: 9, errors, leaseOwner: null });
    const b = await suite.store.batches.create(newBatch(org));
    await suite.store.batches.requestCancel(org, b.id, 9);
    expect(await suite.store.batches.fail(b.id, 'owner-a', errors, 10)).toMatchObject({ status: 'cancelled', cancelledAt: 10, failedAt: null, errors });
  });

  it('pages through batches newest first, each exactly once', async () => {
    const org = randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await suite.store.batches.create(newBatch(org))).id);
    for (const limit of [1, 2, 3, 7, 8]) {
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await suite.store.batches.list(org, { after, limit });
        seen.push(...page.items.map((b) => b.id));
        if (!page.hasMore) break;
        after = page.items[page.items.length - 1].id;
      }
      expect(seen).toEqual([...ids].reverse());
    }
  });

  it('stores and deletes responses with their conversation, per organisation', async () => {
    const org = randomUUID();
    const id = `resp_${randomUUID()}`;
    await suite.store.responses.create({ id, organisationId: org, body: { id, object: 'response' }, conversation: [{ role: 'user', content: 'hi' }] });
    expect(await suite.store.responses.get(org, id)).toMatchObject({ id, body: { id, object: 'response' }, conversation: [{ role: 'user', content: 'hi' }] });
    expect(await suite.store.responses.get(randomUUID(), id)).toBeNull();
    // Deleted only by its own organisation, and once.
    expect(await suite.store.responses.delete(randomUUID(), id)).toBe(false);
    expect(await suite.store.responses.get(org, id)).not.toBeNull();
    expect(await suite.store.responses.delete(org, id)).toBe(true);
    expect(await suite.store.responses.get(org, id)).toBeNull();
    expect(await suite.store.responses.delete(org, id)).toBe(false);
  });

  it('counts what an organisation\'s stored responses take, to the byte, through creates, deletes and the retention sweep', async () => {
    const size = (body: object, conversation: unknown[]) => Buffer.byteLength(JSON.stringify(body)) + Buffer.byteLength(JSON.stringify(conversation));
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('create' as const), org: fc.integer({ min: 0, max: 1 }), text: fc.string({ unit: 'binary', maxLength: 40 }) }),
            fc.record({ op: fc.constant('delete' as const), org: fc.integer({ min: 0, max: 1 }), pick: fc.nat() }),
            fc.record({ op: fc.constant('sweep' as const), limit: fc.integer({ min: 1, max: 3 }) }),
          ),
          { maxLength: 12 },
        ),
        async (ops) => {
          const orgs = [randomUUID(), randomUUID()];
          const created: Array<{ id: string; org: number; bytes: number }> = [];
          const before = await Promise.all(orgs.map((org) => suite.store.responses.storedBytes(org)));
          expect(before).toEqual([0, 0]);
          for (const step of ops) {
            if (step.op === 'create') {
              const id = `resp_${randomUUID()}`;
              const body = { id, object: 'response', output_text: step.text };
              const conversation = [{ role: 'user', content: step.text }, { role: 'assistant', content: `${step.text}é` }];
              await suite.store.responses.create({ id, organisationId: orgs[step.org], body, conversation });
              created.push({ id, org: step.org, bytes: size(body, conversation) });
            } else if (step.op === 'delete') {
              const target = created[step.pick % Math.max(created.length, 1)];
              // Deleting another organisation's response changes nothing.
              if (target !== undefined) await suite.store.responses.delete(orgs[step.org], target.id);
            } else {
              // The sweep deletes every organisation's oldest (other tests' too): what is left is read back below.
              await suite.store.responses.deleteOlderThan(new Date(Date.now() + 1000).toISOString(), step.limit);
            }
          }
          const present = await Promise.all(created.map(async (r) => (await suite.store.responses.get(orgs[r.org], r.id)) !== null));
          for (const [index, org] of orgs.entries()) {
            const expected = created.filter((r, i) => r.org === index && present[i]).reduce((sum, r) => sum + r.bytes, 0);
            expect(await suite.store.responses.storedBytes(org)).toBe(expected);
          }
        },
      ),
      { numRuns: backend === 'postgres' ? 8 : 15 },
    );
  });

  it('deletes the responses created before a cutoff, oldest first, a bounded slice at a time; the retention sweep all of them past its days', async () => {
    const org = randomUUID();
    const records: StoredResponseRecord[] = [];
    for (let i = 0; i < 4; i++) records.push(await suite.store.responses.create({ id: `resp_${randomUUID()}`, organisationId: org, body: { i }, conversation: [] }));
    // What earlier tests stored is older still: gone first, so the slices below see only these.
    await suite.store.responses.deleteOlderThan(records[0].createdIso, 1000);
    const present = async () => (await Promise.all(records.map((r) => suite.store.responses.get(org, r.id)))).map((r) => r !== null);
    expect(await suite.store.responses.deleteOlderThan(records[2].createdIso, 1)).toBe(1);
    expect(await present()).toEqual([false, true, true, true]);
    expect(await suite.store.responses.deleteOlderThan(records[2].createdIso, 10)).toBe(1);
    expect(await suite.store.responses.deleteOlderThan(records[2].createdIso, 10)).toBe(0);
    expect(await present()).toEqual([false, false, true, true]);
    const dayAfter = Date.parse(records[3].createdIso) + 24 * 60 * 60 * 1000 + 1;
    expect(await new ResponseRetention(suite.store.responses, 2, silentLogger, () => dayAfter).sweep()).toBe(0);
    expect(await new ResponseRetention(suite.store.responses, 1, silentLogger, () => dayAfter).sweep()).toBe(2);
    expect(await present()).toEqual([false, false, false, false]);
  });
});
