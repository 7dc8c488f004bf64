// What the vendor mock remembers between requests for its files, batches, fine-tuning jobs and
// stored responses: one state per mock server (keyed by the server object, so two mocks in one test
// never share records and a closed mock's records go with it).
import type { MockContext } from './context.ts';

export interface MockFile {
  object: { id: string; object: 'file'; bytes: number; created_at: number; filename: string; purpose: string; status: 'processed'; status_details: null; expires_at: number | null };
  content: Buffer;
}

export interface MockBatch {
  record: Record<string, unknown> & { id: string; status: string; input_file_id: string; endpoint: string };
}

export interface MockJob {
  record: Record<string, unknown> & { id: string; status: string };
  checkpoints: Array<Record<string, unknown> & { id: string }>;
}

export interface JobsState {
  files: Map<string, MockFile>;
  batches: Map<string, MockBatch>;
  jobs: Map<string, MockJob>;
  responses: Map<string, Record<string, unknown>>;
  /** Each stored response's input, as its input_items list shows it (oldest first). */
  responseInputs: Map<string, Array<Record<string, unknown>>>;
}

const states = new WeakMap<object, JobsState>();

export function stateOf(ctx: MockContext): JobsState {
  const server = (ctx.req.socket as unknown as { server?: object }).server ?? ctx.req.socket;
  let state = states.get(server);
  if (state === undefined) states.set(server, (state = { files: new Map(), batches: new Map(), jobs: new Map(), responses: new Map(), responseInputs: new Map() }));
  return state;
}

/** A page of `items` (newest first, as the vendor lists) after the item with ID `after`. */
export function cursorPage<T extends { id: string }>(items: readonly T[], query: URLSearchParams, defaultLimit: number): { data: T[]; has_more: boolean } | { error: string } {
  const limitText = query.get('limit');
  const limit = limitText === null ? defaultLimit : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1) return { error: `Invalid limit: ${limitText}` };
  let start = 0;
  const after = query.get('after');
  if (after !== null) {
    const at = items.findIndex((item) => item.id === after);
    if (at < 0) return { error: `No such object: ${after}` };
    start = at + 1;
  }
  return { data: items.slice(start, start + limit), has_more: start + limit < items.length };
}
