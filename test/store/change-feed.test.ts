// The change feed across two stores opened on one location (two processes' worth of connections),
// on SQLite and PostgreSQL; and migrations when several openers race on a fresh database.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreChange } from '../../runtime/store/change-feed.ts';
import type { GatewayStore } from '../../runtime/store/open-store.ts';
import { CHANGE_LOG_KEEP, recordChange } from '../../runtime/store/sql/record-change.ts';
import { backendMigrations } from '../../runtime/store/migration-files.ts';
import { BACKENDS, createLocation, dumpTable, openRawDatabase, type StoreLocation } from './backends.ts';

const open: GatewayStore[] = [];
const locations: StoreLocation[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  await Promise.all(locations.splice(0).map((l) => l.remove()));
});

async function twoStores(backend: 'sqlite' | 'postgres'): Promise<[GatewayStore, GatewayStore, StoreLocation]> {
  const location = await createLocation(backend);
  locations.push(location);
  const a = await location.open();
  const b = await location.open();
  open.push(a, b);
  return [a, b, location];
}

describe.each(BACKENDS)('change feed on %s', (backend) => {
  it('delivers the IDs another connection wrote, once, per kind', async () => {
    const [writer, reader] = await twoStores(backend);
    const seen: StoreChange[] = [];
    await reader.changes.watch('configs', (change) => void seen.push(change));
    await reader.changes.watch('prompts', (change) => void seen.push(change));
    await writer.configs.create({ id: 'c1', name: null, config: {} });
    await writer.configs.update('c1', { config: { retry: { attempts: 1 } } });
    await writer.configs.create({ id: 'c2', name: null, config: {} });
    await writer.rateLimits.create({ name: null, type: 'requests', unit: 'rpm', value: 1, conditions: [], groupBy: [], workspaceId: randomUUID(), organisationId: randomUUID() });
    await reader.changes.refresh();
    expect(seen).toEqual([{ kind: 'configs', all: false, ids: ['c1', 'c2'] }]);
    await reader.changes.refresh();
    expect(seen).toHaveLength(1);
    await writer.prompts.create({ id: 'p1', name: 'p', template: { messages: [], model: null, hyperparameters: {} }, description: null });
    await writer.configs.delete('c1');
    await reader.changes.refresh();
    expect(seen.slice(1)).toEqual(
      expect.arrayContaining([
        { kind: 'configs', all: false, ids: ['c1'] },
        { kind: 'prompts', all: false, ids: ['p1'] },
      ]),
    );
    expect(seen).toHaveLength(3);
  });

  it('starts from the revision current when watching began', async () => {
    const [writer, reader] = await twoStores(backend);
    await writer.configs.create({ id: 'before', name: null, config: {} });
    const seen: StoreChange[] = [];
    await reader.changes.watch('configs', (change) => void seen.push(change));
    await reader.changes.refresh();
    expect(seen).toEqual([]);
    await writer.configs.delete('before');
    await reader.changes.refresh();
    expect(seen).toEqual([{ kind: 'configs', all: false, ids: ['before'] }]);
  });

  it('asks for a full reload when the log no longer reaches back far enough', async () => {
    const [writer, reader, location] = await twoStores(backend);
    const seen: StoreChange[] = [];
    await reader.changes.watch('configs', (change) => void seen.push(change));
    for (const id of ['a', 'b', 'c']) await writer.configs.create({ id, name: null, config: {} });
    const raw = await openRawDatabase(location);
    try {
      // What pruning does to a reader that fell behind: its next revision is gone from the log.
      await raw.run("DELETE FROM store_changes WHERE kind = 'configs' AND revision <= 2");
    } finally {
      await raw.close();
    }
    await reader.changes.refresh();
    expect(seen).toEqual([{ kind: 'configs', all: true }]);
  });

  it('keeps the last N changes per kind in the log', async () => {
    const location = await createLocation(backend);
    locations.push(location);
    const raw = await openRawDatabase(location);
    try {
      for (let i = 1; i <= 12; i++) await raw.transaction((tx) => recordChange(tx, 'demo', `r${i}`, 5));
      await raw.transaction((tx) => recordChange(tx, 'other', 'o1', 5));
      const rows = await raw.all<{ kind: string; revision: number; record_id: string }>('SELECT kind, revision, record_id FROM store_changes ORDER BY kind, revision');
      expect(rows.map((r) => `${r.kind}:${r.revision}:${r.record_id}`)).toEqual(['demo:8:r8', 'demo:9:r9', 'demo:10:r10', 'demo:11:r11', 'demo:12:r12', 'other:1:o1']);
      expect(CHANGE_LOG_KEEP).toBeGreaterThanOrEqual(100);
    } finally {
      await raw.close();
    }
  });

  it('redelivers to a listener that failed, and reports the failure and the next full poll', async () => {
    const location = await createLocation(backend);
    locations.push(location);
    const events: string[] = [];
    const errors: unknown[] = [];
    const { openGatewayStore } = await import('../../runtime/store/open-store.ts');
    const changeFeed = { onError: (e: unknown) => void (errors.push(e), events.push('error')), onPolled: () => void events.push('polled') };
    const reader = await openGatewayStore({ dataDir: location.dataDir, databaseUrl: location.databaseUrl, changeFeed });
    const writer = await location.open();
    open.push(reader, writer);
    let calls = 0;
    await reader.changes.watch('configs', () => {
      calls++;
      if (calls === 1) throw new Error('database went away');
    });
    await writer.configs.create({ id: 'x', name: null, config: {} });
    await reader.changes.refresh();
    await reader.changes.refresh();
    await reader.changes.refresh();
    expect(calls).toBe(2);
    expect(errors).toHaveLength(1);
    expect(events).toEqual(['error', 'polled', 'polled']);
  });

  it('polls on its own once started, and stops on close', async () => {
    const [writer, reader] = await twoStores(backend);
    const seen: string[] = [];
    await reader.changes.watch('api_keys', (change) => void seen.push(change.all ? '*' : change.ids.join()));
    reader.changes.start(20);
    const { record } = await writer.apiKeys.create();
    await expect.poll(() => seen, { timeout: 2000, interval: 10 }).toEqual([record.id]);
    await reader.changes.close();
    await writer.apiKeys.revoke(record.id);
    await new Promise((r) => setTimeout(r, 80));
    expect(seen).toEqual([record.id]);
  });

  it('migrates once when several openers race on a fresh database', async () => {
    const location = await createLocation(backend);
    locations.push(location);
    const stores = await Promise.all(Array.from({ length: 4 }, () => location.open()));
    open.push(...stores);
    const applied = (await dumpTable(location, 'schema_migrations')).map((row) => Number(row.version)).sort((a, b) => a - b);
    expect(applied).toEqual(backendMigrations(backend).map((m) => m.version));
    expect(applied.slice(0, 6)).toEqual([1, 2, 3, 4, 5, 6]);
    await Promise.all(stores.map((s, i) => s.configs.create({ id: `from-${i}`, name: null, config: {} })));
    expect((await stores[0].configs.list({ limit: null, offset: 0 })).total).toBe(4);
  });
});
