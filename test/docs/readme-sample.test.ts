// The README's sample `gateway compile` output is the command's real output for examples/broken.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCompile } from '../../compiler/cli/compile.ts';
import { capturedOutput } from '../support/captured-output.ts';

const ROOT = resolve(import.meta.dirname, '../..');

describe('README', () => {
  it('shows real gateway compile output', async () => {
    const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
    const sample = /```\n(error misspelt-keys[\s\S]*?)```/.exec(readme)?.[1];
    expect(sample).toBeDefined();
    const { stdout } = await capturedOutput(() => runCompile(['--configs', 'examples/broken']), ROOT);
    expect(stdout).toContain(sample!);
  });
});
