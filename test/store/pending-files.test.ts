// Files of writes a stop kept: taken by renaming, written once, put back when the write fails, and a
// file a process took and did not finish (it died, or it was an earlier process with this pid) is
// pending again; one a live process is writing is left to it. A kind's files stay within their disk bound.
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { tempDirs } from '../support/temp-dirs.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { keepPending, PendingFilesFullError, takePending } from '../../runtime/store/pending-files.ts';

const folder = tempDirs('gateway-pending');

it('writes each kept file once and deletes it; a failed write puts it back', async () => {
  const dir = folder();
  await keepPending(dir, 'request-log', ['{"a":1}', '{"a":2}']);
  await keepPending(dir, 'usage-budgets', ['{"b":1}']);
  const written: string[][] = [];
  await expect(takePending(dir, 'request-log', async () => { throw new Error('down'); }, silentLogger)).resolves.toBe(0);
  expect(readdirSync(dir).sort()).toEqual([expect.stringMatching(/^request-log-pending-.*\.jsonl$/), expect.stringMatching(/^usage-budgets-pending-.*\.jsonl$/)]);
  expect(await takePending(dir, 'request-log', async (lines) => void written.push(lines), silentLogger)).toBe(2);
  expect(written).toEqual([['{"a":1}', '{"a":2}']]);
  expect(readdirSync(dir)).toEqual([expect.stringMatching(/^usage-budgets-pending-/)]);
  expect(await takePending(dir, 'request-log', async (lines) => void written.push(lines), silentLogger)).toBe(0);
});

it('takes again a file whose taker is gone, and leaves one a live process holds', async () => {
  const dir = folder();
  const name = 'usage-budgets-pending-1-2-ab.jsonl';
  // A dead pid (beyond the kernel's range), an earlier process with this pid, and a live one (the parent).
  writeFileSync(join(dir, `${name}.taken-4194305-aaaa`), '{"n":1}\n');
  writeFileSync(join(dir, `usage-budgets-pending-3-4-cd.jsonl.taken-${process.pid}-bbbb`), '{"n":2}\n');
  writeFileSync(join(dir, `usage-budgets-pending-5-6-ef.jsonl.taken-${process.ppid}-cccc`), '{"n":3}\n');
  const written: string[] = [];
  expect(await takePending(dir, 'usage-budgets', async (lines) => void written.push(...lines), silentLogger)).toBe(2);
  expect(written.sort()).toEqual(['{"n":1}', '{"n":2}']);
  expect(readdirSync(dir)).toEqual([`usage-budgets-pending-5-6-ef.jsonl.taken-${process.ppid}-cccc`]);
});

it('refuses a file that would take the pending files of its kind past the bound, leaving nothing behind', async () => {
  const dir = folder();
  const line = JSON.stringify({ n: 'x'.repeat(90) });
  const lines = Array.from({ length: 10 }, () => line);
  const size = 10 * (line.length + 1);
  await keepPending(dir, 'request-log', lines, 2 * size);
  // Another kind's files do not count; a file being taken does.
  await keepPending(dir, 'usage-budgets', lines);
  const [kept] = readdirSync(dir).filter((name) => name.startsWith('request-log-'));
  renameSync(join(dir, kept!), join(dir, `${kept!}.taken-${process.ppid}-dddd`));
  await keepPending(dir, 'request-log', lines, 2 * size);
  await expect(keepPending(dir, 'request-log', ['{}'], 2 * size)).rejects.toBeInstanceOf(PendingFilesFullError);
  await expect(keepPending(dir, 'request-log', ['{}'], 0)).rejects.toThrow(/already hold \d+ bytes; the bound is 0/);
  expect(readdirSync(dir).filter((name) => name.startsWith('request-log-')).length).toBe(2);
  expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
});

it('reads each line back as it was kept, multi-byte text included; a file it cannot read stays for later, without a throw', async () => {
  const dir = folder();
  const lines = ['{"t":"ü😀 日本"}', '{"t":"x"}', JSON.stringify({ t: 'é'.repeat(70_000) })];
  await keepPending(dir, 'request-log', lines);
  const read: string[] = [];
  expect(await takePending(dir, 'request-log', async (got) => void read.push(...got), silentLogger)).toBe(3);
  expect(read).toEqual(lines);
  // A folder where a file should be: reading it fails (EISDIR); it is put back and the failure logged.
  const odd = join(dir, 'request-log-pending-1-2-ab.jsonl');
  mkdirSync(odd);
  const events: string[] = [];
  const logger = { ...silentLogger, error: (event: string) => void events.push(event) };
  await expect(takePending(dir, 'request-log', async () => undefined, logger)).resolves.toBe(0);
  expect(events).toEqual(['pending_writes_failed']);
  expect(readdirSync(dir)).toEqual(['request-log-pending-1-2-ab.jsonl']);
});
