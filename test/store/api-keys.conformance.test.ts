// ApiKeyStore conformance, run against SQLite and PostgreSQL. Tests share one store per backend and
// keep to their own organisation, so none depends on another's records.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../runtime/store/api-key-secret.ts';
import { InvalidApiKeyInput } from '../../runtime/store/api-key-input.ts';
import { BACKENDS, dumpTable, storeForSuite } from './backends.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(BACKENDS)('ApiKeyStore on %s', (backend) => {
  const ctx = storeForSuite(backend, { beforeAll, afterAll });

  it('creates gw_ keys, stores only their SHA-256, and loads them as active', async () => {
    const { key, record } = await ctx.store.apiKeys.create({ name: 'ci', scope: 'admin' });
    expect(key).toMatch(/^gw_[A-Za-z0-9_-]{43}$/);
    expect(record).toMatchObject({ name: 'ci', scope: 'admin', revokedAt: null });
    expect(record.id).toMatch(UUID);
    expect(new Date(record.createdAt).toISOString()).toBe(record.createdAt);
    expect((await ctx.store.apiKeys.loadActive()).filter((k) => k.record.id === record.id)).toEqual([{ hash: hashApiKey(key), record }]);
    const dump = JSON.stringify(await dumpTable(ctx.location, 'api_keys'));
    expect(dump).not.toContain(key);
    expect(dump).toContain(hashApiKey(key));
  });

  it('shares one default workspace and organisation per installation, across reopening', async () => {
    const a = await ctx.store.apiKeys.create();
    const b = await ctx.store.apiKeys.create();
    expect(a.record.scope).toBe('inference');
    expect(a.record.workspaceId).toMatch(UUID);
    expect(a.record.organisationId).toMatch(UUID);
    expect(b.record).toMatchObject({ workspaceId: a.record.workspaceId, organisationId: a.record.organisationId });
    const reopened = await ctx.reopen();
    const c = await reopened.apiKeys.create();
    expect(c.record).toMatchObject({ workspaceId: a.record.workspaceId, organisationId: a.record.organisationId });
    expect(await reopened.apiKeys.get(a.record.id)).toEqual(a.record);
  });

  it('keeps explicit IDs lower-cased and refuses invalid input without writing', async () => {
    const org = randomUUID();
    const ws = randomUUID();
    const explicit = await ctx.store.apiKeys.create({ workspaceId: ws.toUpperCase(), organisationId: org.toUpperCase() });
    expect(explicit.record).toMatchObject({ workspaceId: ws, organisationId: org });
    const before = (await ctx.store.apiKeys.list()).length;
    await expect(ctx.store.apiKeys.create({ scope: 'root' as never, organisationId: org })).rejects.toBeInstanceOf(InvalidApiKeyInput);
    await expect(ctx.store.apiKeys.create({ organisationId: 'acme' })).rejects.toBeInstanceOf(InvalidApiKeyInput);
    await expect(ctx.store.apiKeys.create({ workspaceId: 'ws-1' })).rejects.toBeInstanceOf(InvalidApiKeyInput);
    await expect(ctx.store.apiKeys.create({ name: 'n'.repeat(256) })).rejects.toBeInstanceOf(InvalidApiKeyInput);
    expect(await ctx.store.apiKeys.list()).toHaveLength(before);
  });

  it('lists oldest first, filters by organisation, gets by ID', async () => {
    const [orgA, orgB] = [randomUUID(), randomUUID()];
    const first = await ctx.store.apiKeys.create({ name: 'first', organisationId: orgA });
    const second = await ctx.store.apiKeys.create({ name: 'second', organisationId: orgB });
    const third = await ctx.store.apiKeys.create({ name: 'third', organisationId: orgA });
    const all = (await ctx.store.apiKeys.list()).map((r) => r.id);
    expect(all.filter((id) => [first, second, third].some((k) => k.record.id === id))).toEqual([first.record.id, second.record.id, third.record.id]);
    expect((await ctx.store.apiKeys.list({ organisationId: orgA })).map((r) => r.name)).toEqual(['first', 'third']);
    expect(await ctx.store.apiKeys.get(second.record.id)).toEqual(second.record);
    expect(await ctx.store.apiKeys.get('nope')).toBeNull();
  });

  it('revokes once and keeps the first revocation time', async () => {
    const org = randomUUID();
    const first = await ctx.store.apiKeys.create({ organisationId: org });
    const second = await ctx.store.apiKeys.create({ organisationId: org });
    const revoked = await ctx.store.apiKeys.revoke(first.record.id);
    expect(revoked?.revokedAt).not.toBeNull();
    expect((await ctx.store.apiKeys.revoke(first.record.id))?.revokedAt).toBe(revoked?.revokedAt);
    expect(await ctx.store.apiKeys.revoke('no-such-id')).toBeNull();
    const active = (await ctx.store.apiKeys.loadActive()).filter((k) => k.record.organisationId === org);
    expect(active.map((k) => k.record.id)).toEqual([second.record.id]);
  });

  it('loads the active ones among given ids, however many (a change the key ring applies)', async () => {
    const org = randomUUID();
    const created = await Promise.all(Array.from({ length: 3 }, () => ctx.store.apiKeys.create({ organisationId: org })));
    await ctx.store.apiKeys.revoke(created[1].record.id);
    // Past one statement's worth of ids, with unknown ids among them.
    const ids = [...Array.from({ length: 1200 }, () => randomUUID()), ...created.map((c) => c.record.id)];
    const active = await ctx.store.apiKeys.loadActiveByIds(ids);
    expect(active.map((k) => k.record.id).sort()).toEqual([created[0].record.id, created[2].record.id].sort());
    expect(active.find((k) => k.record.id === created[0].record.id)).toEqual({ hash: hashApiKey(created[0].key), record: created[0].record });
    expect(await ctx.store.apiKeys.loadActiveByIds([])).toEqual([]);
  });

  it('seeds an operator key once even when many callers race, and a revocation sticks', async () => {
    const secret = `operator-chosen-${randomUUID()}`;
    const results = await Promise.all(Array.from({ length: 8 }, () => ctx.store.apiKeys.ensureKey(secret, { name: 'GATEWAY_API_KEY', scope: 'admin' })));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.record.id)).size).toBe(1);
    await ctx.store.apiKeys.revoke(results[0].record.id);
    const again = await ctx.store.apiKeys.ensureKey(secret);
    expect(again.created).toBe(false);
    expect(again.record.revokedAt).not.toBeNull();
    expect((await ctx.store.apiKeys.loadActive()).some((k) => k.hash === hashApiKey(secret))).toBe(false);
  });

  it('keeps keys across reopening', async () => {
    const { key } = await ctx.store.apiKeys.create({ name: 'durable' });
    const reopened = await ctx.reopen();
    expect((await reopened.apiKeys.loadActive()).map((k) => k.hash)).toContain(hashApiKey(key));
  });
});
