// Every command answers an option it does not know the same way: the command's name, the problem,
// its usage, exit 2 — never a stack trace, never exit 0.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/gateway.js', import.meta.url));
const COMMANDS = ['compile', 'explain', 'diff', 'simulate', 'build', 'generate', 'contract-check', 'serve', 'keys', 'logs', 'mock-provider', 'demo'];

describe('usage errors', () => {
  it.each(COMMANDS)('gateway %s --no-such-option: its name, its usage, exit 2', (command) => {
    const run = spawnSync(process.execPath, [BIN, command, '--no-such-option'], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`^gateway ${command}: .*no-such-option`));
    expect(run.stderr).toContain(`Usage: gateway ${command}`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
