// GatewayFileStore on any SqlDatabase. Contents go into `gateway_file_chunks` as base64 text (the
// store's values are strings and numbers on both backends), 1 MiB of file per row, so no single
// value grows with the file and a content read is a handful of rows.
import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { FileStorageFull, type FileListOptions, type FilePage, type GatewayFilePurpose, type GatewayFileRecord, type GatewayFileStore, type NewGatewayFile } from '../file-store.ts';
import { RECORD_KINDS } from '../record-kinds.ts';
import { nowIso, recordChange } from './record-change.ts';
import type { SqlDatabase, SqlExecutor, SqlValue } from './sql-database.ts';
import { addStored, releaseStored, type ReleasedRow, storedTotal } from './storage-totals.ts';

export const FILE_CHUNK_BYTES = 1024 * 1024;
const FILES_KIND = RECORD_KINDS.files;
const COLUMNS = 'id, organisation_id, purpose, filename, bytes, created_at, created_iso';

interface FileRow {
  id: string;
  organisation_id: string;
  purpose: string;
  filename: string;
  bytes: number | string;
  created_at: number | string;
  created_iso: string;
}

/** `file-gw…`: vendor-shaped, and visibly the gateway's own. */
export function newFileId(): string {
  return `file-gw${randomBytes(12).toString('base64url')}`;
}

/** Inserts a file and its chunks with `tx` (batch finalisation writes its files in its own transaction). */
export async function insertFile(tx: SqlExecutor, input: NewGatewayFile, id: string = newFileId()): Promise<GatewayFileRecord> {
  const createdIso = nowIso();
  const record: GatewayFileRecord = {
    id,
    organisationId: input.organisationId,
    purpose: input.purpose,
    filename: input.filename,
    bytes: input.content.length,
    createdAt: Math.floor(Date.parse(createdIso) / 1000),
    createdIso,
  };
  await tx.run(`INSERT INTO gateway_files (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`, [
    record.id, record.organisationId, record.purpose, record.filename, record.bytes, record.createdAt, record.createdIso,
  ]);
  for (let offset = 0, seq = 0; offset < input.content.length; offset += FILE_CHUNK_BYTES, seq++) {
    // A turn of the event loop between chunks: on SQLite each insert runs on the serving thread
    // (~5 ms a chunk), and a 25 MB upload in one go held every request ~140 ms.
    if (seq > 0) await nextTurn();
    const chunk = input.content.subarray(offset, offset + FILE_CHUNK_BYTES);
    await tx.run('INSERT INTO gateway_file_chunks (file_id, seq, data) VALUES (?, ?, ?)', [record.id, seq, chunk.toString('base64')]);
  }
  // Last: on PostgreSQL the organisation's total is a row others counting to it wait for.
  await addStored(tx, 'files', record.organisationId, record.bytes);
  await recordChange(tx, FILES_KIND, record.id);
  return record;
}

export class SqlFileStore implements GatewayFileStore {
  readonly #db: SqlDatabase;

  constructor(db: SqlDatabase) {
    this.#db = db;
  }

  create(input: NewGatewayFile, maxStoredBytes = 0): Promise<GatewayFileRecord> {
    return this.#db.transaction(async (tx) => {
      if (maxStoredBytes > 0) await this.#refuseOverQuota(tx, input, maxStoredBytes);
      return insertFile(tx, input);
    });
  }

  /**
   * Throws FileStorageFull when the organisation's files and `input` would take more than `max`.
   * SQLite's write transaction is the whole file's already (BEGIN IMMEDIATE); on PostgreSQL two
   * uploads would each read the total without the other's file, so the organisation's uploads take
   * turns on a transaction-scoped lock first.
   */
  async #refuseOverQuota(tx: SqlExecutor, input: NewGatewayFile, max: number): Promise<void> {
    if (this.#db.dialect === 'postgres') await tx.get("SELECT pg_advisory_xact_lock(hashtext('gateway-files:' || ?)) AS locked", [input.organisationId]);
    const stored = await storedTotal(tx, 'files', input.organisationId);
    if (stored + input.content.length > max) throw new FileStorageFull(stored, max);
  }

  storedBytes(organisationId: string): Promise<number> {
    return storedTotal(this.#db, 'files', organisationId);
  }

  async get(organisationId: string, id: string): Promise<GatewayFileRecord | null> {
    const row = await this.#db.get<FileRow>(`SELECT ${COLUMNS} FROM gateway_files WHERE id = ? AND organisation_id = ?`, [id, organisationId]);
    return row === undefined ? null : toRecord(row);
  }

  /** Read a chunk at a time with the event loop let in between, as written. Null once the file is gone, even mid-read. */
  async content(organisationId: string, id: string): Promise<Buffer | null> {
    const file = await this.get(organisationId, id);
    if (file === null) return null;
    const content = Buffer.allocUnsafe(file.bytes);
    for (let offset = 0, seq = 0; offset < file.bytes; offset += FILE_CHUNK_BYTES, seq++) {
      if (seq > 0) await nextTurn();
      const row = await this.#db.get<{ data: string }>('SELECT data FROM gateway_file_chunks WHERE file_id = ? AND seq = ?', [id, seq]);
      if (row === undefined) return null;
      const written = content.write(row.data, offset, 'base64');
      if (written !== Math.min(FILE_CHUNK_BYTES, file.bytes - offset)) return null;
    }
    return content;
  }

  async list(organisationId: string, options: FileListOptions): Promise<FilePage> {
    const where = ['organisation_id = ?'];
    const params: SqlValue[] = [organisationId];
    if (options.purpose !== undefined) {
      where.push('purpose = ?');
      params.push(options.purpose);
    }
    const desc = options.order === 'desc';
    if (options.after !== undefined) {
      const cursor = await this.#db.get<{ created_iso: string }>('SELECT created_iso FROM gateway_files WHERE id = ? AND organisation_id = ?', [options.after, organisationId]);
      if (cursor === undefined) return { items: [], hasMore: false, afterFound: false };
      const op = desc ? '<' : '>';
      where.push(`(created_iso ${op} ? OR (created_iso = ? AND id ${op} ?))`);
      params.push(cursor.created_iso, cursor.created_iso, options.after);
    }
    const direction = desc ? 'DESC' : 'ASC';
    const rows = await this.#db.all<FileRow>(
      `SELECT ${COLUMNS} FROM gateway_files WHERE ${where.join(' AND ')} ORDER BY created_iso ${direction}, id ${direction} LIMIT ?`,
      [...params, options.limit + 1],
    );
    return { items: rows.slice(0, options.limit).map(toRecord), hasMore: rows.length > options.limit, afterFound: true };
  }

  delete(organisationId: string, id: string): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      const deleted = await tx.all<ReleasedRow>('DELETE FROM gateway_files WHERE id = ? AND organisation_id = ? RETURNING organisation_id, bytes', [id, organisationId]);
      if (deleted.length === 0) return false;
      await releaseStored(tx, 'files', deleted);
      await tx.run('DELETE FROM gateway_file_chunks WHERE file_id = ?', [id]);
      await recordChange(tx, FILES_KIND, id);
      return true;
    });
  }
}

function toRecord(row: FileRow): GatewayFileRecord {
  return {
    id: row.id,
    organisationId: row.organisation_id,
    purpose: row.purpose as GatewayFilePurpose,
    filename: row.filename,
    bytes: Number(row.bytes),
    createdAt: Number(row.created_at),
    createdIso: row.created_iso,
  };
}
