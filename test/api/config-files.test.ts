// The --configs folder as serve reads it, at start and on every hot reload: a valid file gives its
// plan, an invalid one its located errors; and a reload of many files, which runs while the gateway
// serves, compiles them in time slices so other requests keep being answered.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfigFiles } from '../../runtime/api/configs/config-files.ts';
import { watchEventLoop } from '../support/event-loop-watch.ts';

const FILES = 2000;

describe('config files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gateway-config-files-'));
    const target = (i: number) => ({ provider: 'openai', api_key: `sk-${i}`, custom_host: `http://127.0.0.1:${9000 + (i % 50)}/v1` });
    await Promise.all(Array.from({ length: FILES }, (_, i) => writeFile(join(dir, `c${i}.json`), JSON.stringify({ strategy: { mode: 'fallback' }, retry: { attempts: 2 }, targets: [target(i), target(i + 1)] }))));
    await writeFile(join(dir, 'broken.json'), '{"strategy": {"mode": "fallback"}, "targets": []}');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('compiles two thousand files in slices (in one go they held the event loop ~0.2 s), and locates the broken one', async () => {
    const watch = watchEventLoop();
    const { files, errors } = await readConfigFiles(dir);
    const longest = watch.stop();
    expect(files).toHaveLength(FILES);
    expect(files.find((f) => f.id === 'c7')?.plan.configId).toBe('c7');
    expect(errors.map((e) => [e.configId, e.pointer])).toEqual([['broken', '/targets']]);
    expect(longest).toBeLessThan(100);
  });

  it('reads a file that starts with a byte-order mark (written by Notepad or PowerShell) as the JSON it is; serve stopped with V8\'s message quoting the file', async () => {
    const bom = await mkdtemp(join(tmpdir(), 'gateway-config-bom-'));
    try {
      await writeFile(join(bom, 'bom.json'), `\ufeff${JSON.stringify({ provider: 'openai', api_key: 'sk-bom', custom_host: 'http://127.0.0.1:9/v1' })}`);
      const { files, errors } = await readConfigFiles(bom);
      expect(errors).toEqual([]);
      expect(files[0].config).toEqual({ provider: 'openai', api_key: 'sk-bom', custom_host: 'http://127.0.0.1:9/v1' });
    } finally {
      await rm(bom, { recursive: true, force: true });
    }
  });
});
