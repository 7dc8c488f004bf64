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

export interface GatewayFileStore {
  create(input: NewGatewayFile): Promise<GatewayFileRecord>;
  /** Null when no file of this organisation has the ID. */
  get(organisationId: string, id: string): Promise<GatewayFileRecord | null>;
  content(organisationId: string, id: string): Promise<Buffer | null>;
  list(organisationId: string, options: FileListOptions): Promise<FilePage>;
  delete(organisationId: string, id: string): Promise<boolean>;
}
