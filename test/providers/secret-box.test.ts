// The sealed box of virtual-key secrets and the master key that seals it.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { test } from '@fast-check/vitest';
import fc from 'fast-check';
import { fingerprint, loadMasterKey, masterKeyFrom, type MasterKey } from '../../runtime/store/master-key.ts';
import { open, seal, SecretBoxError } from '../../runtime/store/secret-box.ts';
import { parseJson } from '../../compiler/config/json-parse.ts';

const master = (fill: number): MasterKey => {
  const key = Buffer.alloc(32, fill);
  return { key, id: fingerprint(key), source: 'env' };
};

describe('secret box', () => {
  test.prop([fc.dictionary(fc.string(), fc.jsonValue()), fc.string({ minLength: 1 })])('opens what it sealed, for the same record and key', (secrets, id) => {
    expect(open(master(1), id, seal(master(1), id, secrets))).toEqual(parseJson(JSON.stringify(secrets)));
  });

  test.prop([fc.dictionary(fc.string(), fc.string()), fc.nat(), fc.integer({ min: 0, max: 5 })])('a changed character anywhere in the box fails to open', (secrets, at, delta) => {
    const box = seal(master(1), 'vk-1', secrets);
    const parts = box.split(':');
    const part = 2 + (at % 3);
    const chars = [...parts[part]];
    const i = at % chars.length;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    chars[i] = alphabet[(alphabet.indexOf(chars[i]) + 1 + delta) % alphabet.length];
    parts[part] = chars.join('');
    const tampered = parts.join(':');
    // Changing the last base64url character may only flip padding bits; anything else must fail.
    let opened: unknown = null;
    try {
      opened = open(master(1), 'vk-1', tampered);
    } catch (error) {
      expect(error).toBeInstanceOf(SecretBoxError);
      return;
    }
    expect(Buffer.from(parts[part], 'base64url')).toEqual(Buffer.from(box.split(':')[part], 'base64url'));
    expect(opened).toEqual(secrets);
  });

  it('does not open for another record or under another key, and says which', () => {
    const box = seal(master(1), 'vk-1', { api_key: 'k' });
    expect(() => open(master(1), 'vk-2', box)).toThrow(SecretBoxError);
    expect(() => open(master(2), 'vk-1', box)).toThrow(new RegExp(`sealed with master key ${master(1).id}, but this gateway has key ${master(2).id}`));
    expect(() => open(master(1), 'vk-1', 'v2:abc')).toThrow(SecretBoxError);
    expect(box).not.toContain('"k"');
  });
});

describe('master key', () => {
  it('reads hex and base64 (and base64url), refuses anything that is not 32 bytes', () => {
    const key = Buffer.from([...Array(32).keys()]);
    expect(masterKeyFrom(key.toString('hex'), 'X')).toEqual(key);
    expect(masterKeyFrom(key.toString('base64'), 'X')).toEqual(key);
    expect(masterKeyFrom(`${key.toString('base64url')}\n`, 'X')).toEqual(key);
    for (const bad of ['', 'short', Buffer.alloc(31).toString('base64'), Buffer.alloc(33).toString('hex'), 'correct horse battery staple']) {
      expect(() => masterKeyFrom(bad, 'GATEWAY_MASTER_KEY')).toThrow(/GATEWAY_MASTER_KEY must hold a 32-byte key/);
    }
  });

  it('prefers the environment, else generates the data-dir file once and reads it back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-master-'));
    try {
      const env = await loadMasterKey(dir, { GATEWAY_MASTER_KEY: Buffer.alloc(32, 3).toString('hex') });
      expect(env).toMatchObject({ source: 'env', key: Buffer.alloc(32, 3) });
      const [a, b] = await Promise.all([loadMasterKey(join(dir, 'd'), {}), loadMasterKey(join(dir, 'd'), {})]);
      expect(a.key).toEqual(b.key);
      expect([a.source, b.source].sort()).toEqual(['file', 'generated']);
      expect((await loadMasterKey(join(dir, 'd'), {})).key).toEqual(a.key);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('master.key appears whole or not at all, so a process starting beside another never reads it half-written', async () => {
    // The file used to be created empty (`wx`) and filled after: a second process reading it between
    // the two refused to start. Readers poll the file while it is generated; any text they read must
    // be a whole key, and all starters get the one key.
    const dir = await mkdtemp(join(tmpdir(), 'gateway-master-race-'));
    try {
      for (let round = 0; round < 60; round++) {
        const folder = join(dir, String(round));
        let done = false;
        const seen: string[] = [];
        const poll = async () => {
          while (!done) {
            try {
              seen.push(await readFile(join(folder, 'master.key'), 'utf8'));
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
            }
          }
        };
        const pollers = Promise.all([poll(), poll(), poll()]);
        const keys = await Promise.all(Array.from({ length: 4 }, () => loadMasterKey(folder, {})));
        done = true;
        await pollers;
        expect(new Set(keys.map((k) => k.id)).size).toBe(1);
        expect(keys.filter((k) => k.source === 'generated')).toHaveLength(1);
        for (const text of seen) expect(masterKeyFrom(text, 'master.key')).toEqual(keys[0].key);
        expect(await readdir(folder)).toEqual(['master.key']);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
