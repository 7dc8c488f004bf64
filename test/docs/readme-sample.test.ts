// The README's sample `gateway compile` output is the command's real output for examples/broken.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCompile } from '../../compiler/cli/compile.ts';

const ROOT = resolve(import.meta.dirname, '../..');

describe('README', () => {
  it('shows real gateway compile output', async () => {
    const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
    const sample = /```\n(error misspelt-keys[\s\S]*?)```/.exec(readme)?.[1];
    expect(sample).toBeDefined();
    let stdout = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const cwd = process.cwd();
    if (cwd !== ROOT) process.chdir(ROOT);
    try {
      await runCompile(['--configs', 'examples/broken']);
    } finally {
      if (cwd !== ROOT) process.chdir(cwd);
      vi.restoreAllMocks();
    }
    expect(stdout).toContain(sample!);
  });
});
