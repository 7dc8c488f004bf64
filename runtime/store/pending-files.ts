// What a stopping process could not write to its store (the store did not answer during its last
// writes: a database outage over a deploy) is kept in a file under the data directory instead of
// being lost, and written to the store by the next start on that folder, or when the writes of the
// process that reads it recover. One file per stop and kind, one JSON text a line, written under a
// temporary name and renamed, so a process starting beside a stopping one never reads half a file.
// The writers make a second write of a file harmless (request records by their ids; budget spends
// are added, so a file is deleted as soon as it is written, and two readers never both take it:
// each renames it to a name of its own first).
import { randomBytes } from 'node:crypto';
import { readdirSync, renameSync, rmSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError, type GatewayLogger } from '../core/log.ts';

const SUFFIX = '.jsonl';
const TAKEN = '.taken';
/** A taken file's name ends with its taker's pid and this process's token (pids repeat across container restarts). */
const TAKEN_NAME = /\.jsonl\.taken-(\d+)-([0-9a-f]+)$/;
const OWN_TOKEN = randomBytes(4).toString('hex');

/** The kinds of pending writes, by the file name's prefix. */
export type PendingKind = 'request-log' | 'usage-budgets';

/** A kept file would take the pending files of its kind past their bound. */
export class PendingFilesFullError extends Error {
  constructor(kind: PendingKind, heldBytes: number, maxBytes: number) {
    super(`the ${kind} files pending already hold ${heldBytes} bytes; the bound is ${maxBytes}`);
    this.name = 'PendingFilesFullError';
  }
}

/**
 * Writes `lines` (JSON texts, no newline inside) to a new owner-only file under `dataDir`; resolves
 * to its path once it is there whole. Off the event loop: a running request log keeps its overflow
 * this way during an outage, ~15 MB at a time. Refused (PendingFilesFullError) when the pending
 * files of `kind` under `dataDir`, whoever kept them, would hold more than `maxBytes` with it: an
 * outage of hours must not fill the disk the store may share.
 */
export async function keepPending(dataDir: string, kind: PendingKind, lines: readonly string[], maxBytes = Number.POSITIVE_INFINITY): Promise<string> {
  await mkdir(dataDir, { recursive: true });
  if (Number.isFinite(maxBytes)) {
    const held = await pendingBytes(dataDir, kind);
    let bytes = 0;
    for (const line of lines) bytes += Buffer.byteLength(line) + 1;
    if (held + bytes > maxBytes) throw new PendingFilesFullError(kind, held, maxBytes);
  }
  const name = `${kind}-pending-${Date.now()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const temporary = join(dataDir, `.${name}.tmp`);
  const file = join(dataDir, `${name}${SUFFIX}`);
  try {
    // Line by line, never one string: a queue of records with bodies (~33 KB each) passes V8's
    // longest string (~512 MB) joined.
    await writeFile(temporary, (function* () {
      for (const line of lines) yield `${line}\n`;
    })(), { mode: 0o600 });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return file;
}

/** Bytes the pending files of `kind` hold, taken ones included (a file vanishing meanwhile counts 0). */
async function pendingBytes(dataDir: string, kind: PendingKind): Promise<number> {
  const prefix = `${kind}-pending-`;
  let total = 0;
  for (const name of await readdir(dataDir)) {
    if (!name.startsWith(prefix)) continue;
    total += await stat(join(dataDir, name)).then((file) => file.size, () => 0);
  }
  return total;
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
    let lines: string[];
    try {
      lines = linesOf(await readFile(taken));
      await write(lines);
    } catch (error) {
      try {
        renameSync(taken, file);
      } catch {
        // Gone or unmovable: a later start finds it under the taken name, its taker dead.
      }
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

/** The non-empty lines of a file, each its own string (the whole file as one could pass V8's longest string). */
function linesOf(bytes: Buffer): string[] {
  const lines: string[] = [];
  for (let start = 0; start < bytes.length; ) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    if (end > start) lines.push(bytes.toString('utf8', start, end));
    start = end + 1;
  }
  return lines;
}
