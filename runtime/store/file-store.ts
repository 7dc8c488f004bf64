// Files the gateway keeps itself (docs/jobs.md): uploads with purpose `batch` or `fine-tune` when the
// route targets no provider with a files API, and the output and error files of gateway-managed
// batches. Each belongs to the organisation of the key that made it. Contents are stored in the
// database (in chunks), so every gateway process on one store serves every file.

export type GatewayFilePurpose = 'batch' | 'fine-tune' | 'batch_output';

export interface GatewayFileRecord {
  id: string;
  organisationId: string;
  purpose: GatewayFilePurpose;
  filename: string;
  bytes: number;
  /** Unix seconds. */
  createdAt: number;
  /** ISO 8601, strictly increasing within a process: the list order. */
  createdIso: string;
}

export interface NewGatewayFile {
  organisationId: string;
  purpose: GatewayFilePurpose;
  filename: string;
  content: Buffer;
}

export interface FileListOptions {
  /** ID of the last file of the previous page. */
  after?: string;
  limit: number;
  order: 'asc' | 'desc';
  purpose?: string;
}

export interface FilePage {
  items: GatewayFileRecord[];
  hasMore: boolean;
  /** False when `after` names no file of this organisation (it may be a provider's file ID). */
  afterFound: boolean;
}

/** An upload that would take the organisation's files past `maxStoredBytes`: nothing was stored. */
export class FileStorageFull extends Error {
  readonly storedBytes: number;
  readonly maxStoredBytes: number;

  constructor(storedBytes: number, maxStoredBytes: number) {
    super(`The organisation's files take ${storedBytes} bytes; with this one they would take more than ${maxStoredBytes}.`);
    this.name = 'FileStorageFull';
    this.storedBytes = storedBytes;
    this.maxStoredBytes = maxStoredBytes;
  }
}

export interface GatewayFileStore {
  /**
   * Stores a file. With `maxStoredBytes` (> 0), the organisation's files, this one included, must
   * take at most that many bytes, or FileStorageFull is thrown; checked and stored in one step, so
   * uploads racing each other (in other processes too) cannot pass it together.
   */
  create(input: NewGatewayFile, maxStoredBytes?: number): Promise<GatewayFileRecord>;
  /** Bytes the organisation's files take, all together. */
  storedBytes(organisationId: string): Promise<number>;
  /** Null when no file of this organisation has the ID. */
  get(organisationId: string, id: string): Promise<GatewayFileRecord | null>;
  content(organisationId: string, id: string): Promise<Buffer | null>;
  list(organisationId: string, options: FileListOptions): Promise<FilePage>;
  delete(organisationId: string, id: string): Promise<boolean>;
}
