// docs/errors.md lists every compile error code, compile warning and gateway error code, and nothing else:
// each table is read from its own section and compared with the code's table.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CONFIG_ERRORS } from '../../compiler/config/errors.ts';
import { COMPILE_WARNING_CODES } from '../../compiler/cli/compile.ts';
import { GATEWAY_ERRORS } from '../../runtime/core/errors.ts';

const doc = readFileSync(resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');

/** The table rows of the `## heading` section: the cells of each `| … |` line after the header. */
function tableRows(heading: string): string[][] {
  const start = doc.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/errors.md has no "## ${heading}" section`);
  const next = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, next < 0 ? undefined : next);
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[-| ]+\|$/.test(line))
    .slice(1)
    .map((line) => line.slice(1, -1).split(' | ').map((cell) => cell.trim()));
}

const code = (cell: string) => /^`([^`]+)`$/.exec(cell)?.[1] ?? `(not a code: ${cell})`;

describe('docs/errors.md', () => {
  it('the compile error table lists exactly the codes of CONFIG_ERRORS, once each', () => {
    const codes = tableRows('Compile error codes').map((row) => code(row[0]));
    expect(codes.length).toBe(new Set(codes).size);
    expect([...codes].sort()).toEqual(Object.keys(CONFIG_ERRORS).sort());
  });

  it('the compile warning table lists exactly the warnings gateway compile gives, once each', () => {
    const rows = tableRows('Compile warnings');
    const codes = rows.map((row) => code(row[0]));
    expect(codes.length).toBe(new Set(codes).size);
    expect([...codes].sort()).toEqual([...COMPILE_WARNING_CODES].sort());
    for (const row of rows) expect(row[1].length, `${row[0]} meaning`).toBeGreaterThan(10);
  });

  it('each compile error row has a meaning, an example and a fix', () => {
    for (const row of tableRows('Compile error codes')) {
      expect(row, row[0]).toHaveLength(4);
      expect(row[1].length, `${row[0]} meaning`).toBeGreaterThan(10);
      expect(row[2].length, `${row[0]} example`).toBeGreaterThan(0);
      expect(row[3].length, `${row[0]} fix`).toBeGreaterThan(5);
    }
  });

  it('the gateway error table lists exactly the codes of GATEWAY_ERRORS, once each', () => {
    const codes = tableRows('Gateway error codes').map((row) => code(row[0]));
    expect(codes.length).toBe(new Set(codes).size);
    expect([...codes].sort()).toEqual(Object.keys(GATEWAY_ERRORS).sort());
  });

  it('each gateway error row states the status and type the code really has, and when it happens', () => {
    for (const row of tableRows('Gateway error codes')) {
      const spec = GATEWAY_ERRORS[code(row[0]) as keyof typeof GATEWAY_ERRORS];
      expect([row[1], row[2]], row[0]).toEqual([String(spec.status), `\`${spec.type}\``]);
      expect(row[3].length, `${row[0]} when`).toBeGreaterThan(10);
    }
  });
});
