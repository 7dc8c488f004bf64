// The stored-responses sweep (runtime/jobs/response-retention.ts): nothing with 0 days, and a store
// that fails is logged, never thrown (the next sweep tries again). Its deletes are tested on both
// backends in test/jobs/store.conformance.test.ts.
import { describe, expect, it } from 'vitest';
import { ResponseRetention } from '../../runtime/jobs/response-retention.ts';
import type { GatewayLogger } from '../../runtime/core/log.ts';
import type { ResponseStore } from '../../runtime/store/response-store.ts';

function store(deleteOlderThan: ResponseStore['deleteOlderThan']): ResponseStore {
  return { create: () => Promise.reject(new Error('unused')), storedBytes: () => Promise.resolve(0), get: () => Promise.resolve(null), delete: () => Promise.resolve(false), deleteOlderThan };
}

function logger(lines: Array<[string, Record<string, unknown>]>): GatewayLogger {
  const note = (event: string, fields: Record<string, unknown> = {}) => void lines.push([event, fields]);
  return { info: note, warn: note, error: note } as unknown as GatewayLogger;
}

describe('the stored-responses sweep', () => {
  it('deletes in slices until one is not full, with the cutoff its days before now', async () => {
    const cutoffs: string[] = [];
    const slices = [500, 500, 7];
    const retention = new ResponseRetention(store(async (cutoff, limit) => {
      cutoffs.push(cutoff);
      expect(limit).toBe(500);
      return slices.shift() ?? 0;
    }), 30, logger([]), () => Date.UTC(2026, 10, 30));
    expect(await retention.sweep()).toBe(1007);
    expect(new Set(cutoffs)).toEqual(new Set(['2026-10-31T00:00:00.000Z']));
  });

  it('keeps every response with 0 days, and starts no timer', async () => {
    let called = false;
    const retention = new ResponseRetention(store(async () => ((called = true), 0)), 0, logger([]));
    retention.start();
    expect(await retention.sweep()).toBe(0);
    expect(called).toBe(false);
    retention.stop();
  });

  it('logs a store that fails and answers 0', async () => {
    const lines: Array<[string, Record<string, unknown>]> = [];
    const retention = new ResponseRetention(store(() => Promise.reject(new Error('disk full'))), 30, logger(lines));
    expect(await retention.sweep()).toBe(0);
    expect(lines.map(([event]) => event)).toEqual(['response_retention_failed']);
  });
});
