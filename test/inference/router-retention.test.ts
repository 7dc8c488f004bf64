// A router built and dropped leaves nothing behind (runtime/inference/routers.ts compiles its source
// without V8's compilation cache, which kept every source with its code until the heap neared its
// limit). Measured in a fresh process with --expose-gc; the bare `new Function` run shows the
// measurement sees the retention it guards against.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('./fixtures/router-retention.ts', import.meta.url));

function heapGrowthMb(mode: 'build' | 'plain'): number {
  const run = spawnSync(process.execPath, ['--expose-gc', FIXTURE, mode, '100'], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return Number(run.stdout.trim());
}

it('keeps nothing of a hundred large routers once they are dropped, where a bare new Function keeps ~16 MB', () => {
  expect(heapGrowthMb('plain')).toBeGreaterThan(8);
  expect(heapGrowthMb('build')).toBeLessThan(4);
}, 60_000);
