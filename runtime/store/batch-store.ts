// Gateway-managed batches (SPEC §2.4, §3; docs/jobs.md): the record, its line results, and the lease
// that says which process runs it. Every status change a runner makes is guarded by its lease, so a
// process that lost its lease (it stalled, another took over) changes nothing.

export type BatchStatus = 'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'expired' | 'cancelling' | 'cancelled';

export interface BatchLineError {
  code: string;
  message: string;
  param: string | null;
  line: number | null;
}

export interface BatchRequestCounts {
  total: number;
  completed: number;
  failed: number;
}

export interface BatchRecord {
  id: string;
  organisationId: string;
  endpoint: string;
  inputFileId: string;
  /** The gateway file the lines are read from: the input file, or the gateway's copy of a provider's file. */
  contentFileId: string;
  completionWindow: string;
  status: BatchStatus;
  /** Unix seconds, like every timestamp below. */
  createdAt: number;
  createdIso: string;
  inProgressAt: number | null;
  expiresAt: number | null;
  finalizingAt: number | null;
  completedAt: number | null;
  failedAt: number | null;
  expiredAt: number | null;
  cancellingAt: number | null;
  cancelledAt: number | null;
  outputFileId: string | null;
  errorFileId: string | null;
  /** While the batch runs: counted from the line results recorded so far. */
  requestCounts: BatchRequestCounts;
  metadata: Record<string, string> | null;
  errors: BatchLineError[] | null;
  /** The sealed routing headers of the create request. */
  route: string;
  leaseOwner: string | null;
  /** Epoch milliseconds. */
  leaseExpiresMs: number | null;
}

export interface NewBatch {
  id: string;
  organisationId: string;
  endpoint: string;
  inputFileId: string;
  contentFileId: string;
  completionWindow: string;
  /** Unix milliseconds of creation (default: now): the caller computed expiresAt from the same instant. */
  createdAtMs?: number;
  expiresAt: number;
  metadata: Record<string, string> | null;
  route: string;
  /** The creating process runs it first. */
  leaseOwner: string;
  leaseExpiresMs: number;
}

export interface BatchPage {
  items: BatchRecord[];
  hasMore: boolean;
  afterFound: boolean;
}

export interface LineResult {
  lineIndex: number;
  outcome: 'output' | 'error';
  /** The JSONL line (without its newline) in the vendor's batch output format. */
  line: string;
}

/** How a batch settles: its final status and the timestamp column that records it. */
export type BatchSettlement = 'completed' | 'cancelled' | 'expired';

export interface BatchStore {
  create(input: NewBatch): Promise<BatchRecord>;
  get(organisationId: string, id: string): Promise<BatchRecord | null>;
  /** Any organisation's batch: for the runner. */
  load(id: string): Promise<BatchRecord | null>;
  /** Newest first; `after` is the ID of the last batch of the previous page. */
  list(organisationId: string, options: { after?: string; limit: number }): Promise<BatchPage>;
  /** IDs of batches with work left whose lease is free or expired, oldest first. */
  claimable(nowMs: number, limit: number): Promise<string[]>;
  /** Takes the lease when it is free, expired or already ours; null when another process holds it or the batch is final. */
  claim(id: string, owner: string, nowMs: number, leaseMs: number): Promise<BatchRecord | null>;
  /** Extends our lease; the current status, or null when the lease is no longer ours. */
  renew(id: string, owner: string, nowMs: number, leaseMs: number): Promise<BatchStatus | null>;
  /** Gives the lease up (on shutdown), so another process or a restart takes over at once. */
  release(id: string, owner: string): Promise<void>;
  /** validating / in_progress → cancelling. The batch (changed or not), or null when there is none. */
  requestCancel(organisationId: string, id: string, nowS: number): Promise<{ record: BatchRecord; changed: boolean } | null>;
  /** validating → in_progress with the line count (or, when cancelling, records the count only). */
  startRunning(id: string, owner: string, total: number, nowS: number): Promise<BatchRecord | null>;
  /** Input validation failed: → failed with the errors. */
  fail(id: string, owner: string, errors: BatchLineError[], nowS: number): Promise<BatchRecord | null>;
  /** in_progress → finalizing. */
  markFinalizing(id: string, owner: string, nowS: number): Promise<BatchRecord | null>;
  /** Line indexes that have a result. */
  doneLines(id: string): Promise<Set<number>>;
  /** Records a line's result once; false when the line already had one. */
  recordResult(id: string, result: LineResult): Promise<boolean>;
  /**
   * Settles the batch in one transaction: the recorded results become the output file (successes) and
   * the error file (failures), in input order; status, timestamp, counts and file IDs are set; the
   * results are deleted; the lease is released. Null when the lease is no longer ours.
   */
  settle(id: string, owner: string, settlement: BatchSettlement, nowS: number): Promise<BatchRecord | null>;
}
