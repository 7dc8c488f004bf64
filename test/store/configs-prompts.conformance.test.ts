// SavedConfigStore and PromptStore conformance, run against SQLite and PostgreSQL.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PromptTemplate } from '../../runtime/store/prompt-store.ts';
import { UniqueViolationError } from '../../runtime/store/sql/sql-database.ts';
import { BACKENDS, storeForSuite } from './backends.ts';

const id = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
const template = (text: string): PromptTemplate => ({ messages: [{ role: 'user', content: text }], model: 'gpt-test', hyperparameters: { temperature: 0.5 } });

describe.each(BACKENDS)('SavedConfigStore on %s', (backend) => {
  const ctx = storeForSuite(backend, { beforeAll, afterAll });

  it('creates, reads, updates (version + 1) and deletes', async () => {
    const configId = id('cfg');
    const created = await ctx.store.configs.create({ id: configId, name: 'first', config: { retry: { attempts: 2 } } });
    expect(created).toMatchObject({ id: configId, name: 'first', version: 1, config: { retry: { attempts: 2 } } });
    expect(created.createdAt).toBe(created.lastUpdatedAt);
    expect(await ctx.store.configs.get(configId)).toEqual(created);

    const updated = await ctx.store.configs.update(configId, { config: { request_timeout: 5000 } });
    expect(updated).toMatchObject({ id: configId, name: 'first', version: 2, config: { request_timeout: 5000 }, createdAt: created.createdAt });
    expect(updated!.lastUpdatedAt > created.lastUpdatedAt).toBe(true);
    expect(await ctx.store.configs.update(configId, { name: null, config: { retry: { attempts: 1 } } })).toMatchObject({ name: null, version: 3 });
    expect(await ctx.store.configs.update('missing', { config: {} })).toBeNull();

    expect(await ctx.store.configs.delete(configId)).toBe(true);
    expect(await ctx.store.configs.delete(configId)).toBe(false);
    expect(await ctx.store.configs.get(configId)).toBeNull();
  });

  it('refuses a taken ID', async () => {
    const configId = id('dup');
    await ctx.store.configs.create({ id: configId, name: null, config: { retry: { attempts: 1 } } });
    await expect(ctx.store.configs.create({ id: configId, name: null, config: {} })).rejects.toBeInstanceOf(UniqueViolationError);
  });

  it('pages oldest first with a total, and leaves out excluded IDs', async () => {
    const ids = [id('p0'), id('p1'), id('p2'), id('p3')];
    for (const configId of ids) await ctx.store.configs.create({ id: configId, name: null, config: { retry: { attempts: 1 } } });
    const all = await ctx.store.configs.list({ limit: null, offset: 0 });
    const ours = all.items.map((r) => r.id).filter((x) => ids.includes(x));
    expect(ours).toEqual(ids);
    expect(all.total).toBe(all.items.length);
    const page = await ctx.store.configs.list({ limit: 2, offset: all.total - 3 });
    expect(page.items.map((r) => r.id)).toEqual(ids.slice(1, 3));
    expect(page.total).toBe(all.total);
    const excluded = await ctx.store.configs.list({ limit: null, offset: 0 }, { excludeIds: [ids[0], ids[2]] });
    expect(excluded.total).toBe(all.total - 2);
    expect(excluded.items.map((r) => r.id)).not.toContain(ids[0]);
    expect((await ctx.store.configs.list({ limit: null, offset: all.total - 1 })).items.map((r) => r.id)).toEqual([ids[3]]);
    expect((await ctx.store.configs.list({ limit: 0, offset: 0 })).items).toEqual([]);
  });

  it('keeps configs across reopening, JSON intact', async () => {
    const configId = id('durable');
    const config = { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: 'sk-é\u2028"' }, { virtual_key: 'v' }] };
    await ctx.store.configs.create({ id: configId, name: 'ünïcode', config });
    const reopened = await ctx.reopen();
    expect(await reopened.configs.get(configId)).toMatchObject({ name: 'ünïcode', config });
  });
});

describe.each(BACKENDS)('PromptStore on %s', (backend) => {
  const ctx = storeForSuite(backend, { beforeAll, afterAll });

  it('creates version 1, adds versions, reads any version, lists versions', async () => {
    const promptId = id('prompt');
    const created = await ctx.store.prompts.create({ id: promptId, name: 'Greeter', template: template('Hi {{name}}'), description: 'first' });
    expect(created).toMatchObject({ id: promptId, name: 'Greeter', version: 1, latestVersion: 1, versionDescription: 'first' });
    const second = await ctx.store.prompts.addVersion(promptId, { template: template('Hello {{name}}'), description: null });
    expect(second).toMatchObject({ version: 2, latestVersion: 2, name: 'Greeter', template: template('Hello {{name}}') });
    const renamed = await ctx.store.prompts.addVersion(promptId, { name: 'Welcomer', template: template('Yo {{name}}'), description: 'third' });
    expect(renamed).toMatchObject({ version: 3, name: 'Welcomer' });

    expect(await ctx.store.prompts.get(promptId)).toMatchObject({ version: 3, latestVersion: 3, name: 'Welcomer', versionDescription: 'third' });
    expect(await ctx.store.prompts.get(promptId, 1)).toMatchObject({ version: 1, latestVersion: 3, template: template('Hi {{name}}'), versionDescription: 'first' });
    expect(await ctx.store.prompts.get(promptId, 4)).toBeNull();
    expect((await ctx.store.prompts.versions(promptId))!.map((v) => [v.version, v.template.messages[0].content])).toEqual([
      [1, 'Hi {{name}}'], [2, 'Hello {{name}}'], [3, 'Yo {{name}}'],
    ]);
    expect(await ctx.store.prompts.addVersion('missing', { template: template('x'), description: null })).toBeNull();
    expect(await ctx.store.prompts.versions('missing')).toBeNull();
  });

  it('numbers concurrent versions 1..n without gaps or repeats', async () => {
    const promptId = id('busy');
    await ctx.store.prompts.create({ id: promptId, name: 'busy', template: template('v1'), description: null });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => ctx.store.prompts.addVersion(promptId, { template: template(`v${i + 2}`), description: null })));
    expect(results.map((r) => r!.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    const versions = (await ctx.store.prompts.versions(promptId))!;
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    expect(new Set(versions.map((v) => v.template.messages[0].content)).size).toBe(21);
  });

  it('lists latest versions with a total, refuses taken IDs, deletes with every version', async () => {
    const a = id('la');
    const b = id('lb');
    await ctx.store.prompts.create({ id: a, name: 'A', template: template('a1'), description: null });
    await ctx.store.prompts.create({ id: b, name: 'B', template: template('b1'), description: null });
    await ctx.store.prompts.addVersion(a, { template: template('a2'), description: null });
    await expect(ctx.store.prompts.create({ id: a, name: 'again', template: template('x'), description: null })).rejects.toBeInstanceOf(UniqueViolationError);
    const all = await ctx.store.prompts.list({ limit: null, offset: 0 });
    expect(all.total).toBe(all.items.length);
    const ours = all.items.filter((p) => p.id === a || p.id === b);
    expect(ours.map((p) => [p.id, p.version, p.template.messages[0].content])).toEqual([[a, 2, 'a2'], [b, 1, 'b1']]);

    expect(await ctx.store.prompts.delete(a)).toBe(true);
    expect(await ctx.store.prompts.delete(a)).toBe(false);
    expect(await ctx.store.prompts.get(a)).toBeNull();
    expect(await ctx.store.prompts.get(a, 1)).toBeNull();
    expect(await ctx.store.prompts.versions(a)).toBeNull();
    // The ID is free again, starting over at version 1.
    expect(await ctx.store.prompts.create({ id: a, name: 'A again', template: template('new'), description: null })).toMatchObject({ version: 1 });
  });
});
