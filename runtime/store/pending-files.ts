// What a stopping process could not write to its store (the store did not answer during its last
// writes: a database outage over a deploy) is kept in a file under the data directory instead of
// being lost, and written to the store by the next start on that folder, or when the writes of the
// process that reads it recover. One file per stop and kind, one JSON text a line, written under a
// temporary name and renamed, so a process starting beside a stopping one never reads half a file.
// The writers make a second write of a file harmless (request records by their ids; budget spends
// are added, so a file is deleted as soon as it is written, and two readers never both take it:
// each renames it to a name of its own first).
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeError, type GatewayLogger } from '../core/log.ts';

const SUFFIX = '.jsonl';
const TAKEN = '.taken';
/** A taken file's name ends with its taker's pid and this process's token (pids repeat across container restarts). */
const TAKEN_NAME = /\.jsonl\.taken-(\d+)-([0-9a-f]+)$/;
const OWN_TOKEN = randomBytes(4).toString('hex');

/** The kinds of pending writes, by the file name's prefix. */
export type PendingKind = 'request-log' | 'usage-budgets';

/** Writes `lines` (JSON texts, no newline inside) to a new owner-only file under `dataDir`; returns its path. */
export function keepPending(dataDir: string, kind: PendingKind, lines: readonly string[]): string {
  mkdirSync(dataDir, { recursive: true });
  const name = `${kind}-pending-${Date.now()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const temporary = join(dataDir, `.${name}.tmp`);
  const file = join(dataDir, `${name}${SUFFIX}`);
  writeFileSync(temporary, `${lines.join('\n')}\n`, { mode: 0o600 });
  renameSync(temporary, file);
  return file;
}

/**
 * Hands each pending file of `kind` to `write` and deletes it once written; a file `write` fails on is
 * put back for a later try (and the rest wait with it). Returns the lines written.
 */
export async function takePending(dataDir: string, kind: PendingKind, write: (lines: string[]) => Promise<void>, logger: GatewayLogger): Promise<number> {
  const prefix = `${kind}-pending-`;
  let names: string[];
  try {
    const all = readdirSync(dataDir).filter((name) => name.startsWith(prefix));
    // A file a process took and did not finish (it died first) is pending again.
    for (const name of all) {
      const taken = TAKEN_NAME.exec(name);
      if (taken !== null && !alive(Number(taken[1]), taken[2]!)) renameSync(join(dataDir, name), join(dataDir, name.slice(0, name.indexOf(TAKEN))));
    }
    names = readdirSync(dataDir).filter((name) => name.startsWith(prefix) && name.endsWith(SUFFIX)).sort();
  } catch {
    return 0;
  }
  let written = 0;
  for (const name of names) {
    const file = join(dataDir, name);
    // Taken by renaming: of two processes starting at once, one gets each file.
    const taken = `${file}${TAKEN}-${process.pid}-${OWN_TOKEN}`;
    try {
      renameSync(file, taken);
    } catch {
      continue;
    }
    const lines = readFileSync(taken, 'utf8').split('\n').filter((line) => line !== '');
    try {
      await write(lines);
    } catch (error) {
      renameSync(taken, file);
      logger.error('pending_writes_failed', { kind, file: name, error: describeError(error), note: 'the file is kept and written when the store answers again, or at the next start' });
      return written;
    }
    rmSync(taken, { force: true });
    written += lines.length;
    logger.info('pending_writes_restored', { kind, file: name, lines: lines.length });
  }
  return written;
}

/** Whether the process that took a file may still be writing it. */
function alive(pid: number, token: string): boolean {
  if (token === OWN_TOKEN) return true;
  // This pid with another token: an earlier process (a container restarted with the same pid).
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
