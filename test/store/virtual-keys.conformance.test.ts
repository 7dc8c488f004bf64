// VirtualKeyStore conformance on SQLite and PostgreSQL (the store suite's backends): CRUD with
// versions, unique IDs and slugs, paging, and every write reaching the change feed.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreChange } from '../../runtime/store/change-feed.ts';
import { UniqueViolationError } from '../../runtime/store/sql/sql-database.ts';
import { VIRTUAL_KEYS_KIND, type VirtualKeyInput } from '../../runtime/store/virtual-key-store.ts';
import { BACKENDS, storeForSuite } from './backends.ts';

const id = () => `vk-${randomUUID().slice(0, 12)}`;
const input = (fields: Partial<VirtualKeyInput> = {}): VirtualKeyInput => ({
  name: 'n', slug: null, provider: 'anthropic', options: { custom_host: 'http://127.0.0.1:1/v1' }, sealed: 'v1:0000:iv:tag:ct', keyHint: 'sk-…abcd', secretNames: ['api_key'], ...fields,
});

describe.each(BACKENDS)('VirtualKeyStore on %s', (backend) => {
  const ctx = storeForSuite(backend, { beforeAll, afterAll });

  it('creates, reads, updates (version + 1) and deletes', async () => {
    const key = id();
    const created = await ctx.store.virtualKeys.create(key, input());
    expect(created).toMatchObject({ id: key, version: 1, provider: 'anthropic', options: { custom_host: 'http://127.0.0.1:1/v1' }, secretNames: ['api_key'], keyHint: 'sk-…abcd' });
    expect(await ctx.store.virtualKeys.get(key)).toEqual(created);
    const updated = await ctx.store.virtualKeys.update(key, input({ name: null, provider: 'groq', sealed: 'v1:0000:a:b:c' }));
    expect(updated).toMatchObject({ id: key, version: 2, name: null, provider: 'groq', sealed: 'v1:0000:a:b:c', createdAt: created.createdAt });
    expect(await ctx.store.virtualKeys.update('vk-missing', input())).toBeNull();
    expect(await ctx.store.virtualKeys.delete(key)).toBe(true);
    expect(await ctx.store.virtualKeys.delete(key)).toBe(false);
    expect(await ctx.store.virtualKeys.get(key)).toBeNull();
  });

  it('keeps IDs and slugs unique, on create and on update; many keys may have no slug', async () => {
    const slug = `s-${randomUUID().slice(0, 8)}`;
    const first = id();
    await ctx.store.virtualKeys.create(first, input({ slug }));
    await expect(ctx.store.virtualKeys.create(first, input())).rejects.toBeInstanceOf(UniqueViolationError);
    await expect(ctx.store.virtualKeys.create(id(), input({ slug }))).rejects.toBeInstanceOf(UniqueViolationError);
    const second = id();
    await ctx.store.virtualKeys.create(second, input());
    await ctx.store.virtualKeys.create(id(), input());
    await expect(ctx.store.virtualKeys.update(second, input({ slug }))).rejects.toBeInstanceOf(UniqueViolationError);
  });

  it('pages oldest first with a total, and loads everything for the ring', async () => {
    const ids = [id(), id(), id()];
    for (const key of ids) await ctx.store.virtualKeys.create(key, input());
    const all = await ctx.store.virtualKeys.list({ limit: null, offset: 0 });
    expect(all.total).toBe(all.items.length);
    const positions = ids.map((key) => all.items.findIndex((r) => r.id === key));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    const page = await ctx.store.virtualKeys.list({ limit: 1, offset: positions[1] });
    expect(page.items.map((r) => r.id)).toEqual([ids[1]]);
    expect((await ctx.store.virtualKeys.loadAll()).map((r) => r.id)).toEqual(all.items.map((r) => r.id));
  });

  it('logs every write for the change feed', async () => {
    const seen: StoreChange[] = [];
    await ctx.store.changes.watch(VIRTUAL_KEYS_KIND, (change) => {
      seen.push(change);
    });
    const key = id();
    await ctx.store.virtualKeys.create(key, input());
    await ctx.store.virtualKeys.update(key, input({ name: 'x' }));
    await ctx.store.virtualKeys.delete(key);
    await ctx.store.changes.refresh();
    expect(seen).toEqual([{ kind: VIRTUAL_KEYS_KIND, all: false, ids: [key] }]);
  });
});
