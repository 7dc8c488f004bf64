// Any `gateway` command started on a Node older than 24 prints one clear line and exits 1, instead of
// crashing on an API that Node lacks.
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem, REQUIRED_NODE_MAJOR } from '../../bin/node-version.js';

const BIN = fileURLToPath(new URL('../../bin/gateway.js', import.meta.url));

/** A Node older than the one required, on this machine's PATH (the system Node), or null. */
function olderNode(): string | null {
  const found = spawnSync('sh', ['-c', 'which -a node'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  for (const path of found) {
    try {
      const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
      if (Number(version.slice(1).split('.')[0]) < REQUIRED_NODE_MAJOR) return path;
    } catch {
      // not runnable: look further
    }
  }
  return null;
}

describe('the Node version check', () => {
  it('names the version needed and the one found, for any older Node', () => {
    expect(nodeVersionProblem('v20.20.2')).toMatch(/needs Node\.js 24 or newer, and this is v20\.20\.2/);
    expect(nodeVersionProblem('v18.0.0')).not.toBeNull();
    expect(nodeVersionProblem('v24.9.0')).toBeNull();
    expect(nodeVersionProblem('v25.1.0')).toBeNull();
  });

  const older = olderNode();
  it.skipIf(older === null)('stops every command on an older Node with that line and exit 1', () => {
    for (const args of [['--help'], ['serve', '--help'], ['compile', '--configs', 'examples/configs']]) {
      const run = spawnSync(older!, [BIN, ...args], { encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^gateway needs Node\.js 24 or newer, and this is v\d+/)]);
    }
  });
});
