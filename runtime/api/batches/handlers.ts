// /v1/batches (SPEC §2.4, §3, §4.7, §4.8). A batch is forwarded to the routed provider when every
// target it may pick has a batch API, its window is not `immediate`, its input file is the
// provider's and no usage-limits policy may count its lines. Otherwise the gateway runs it
// (runtime/jobs/batch-runner.ts): the create answers with the batch `validating`, and each line then
// goes through the same router as a live request.
import { randomBytes } from 'node:crypto';
import type { Batch as BatchWire, BatchCreate, BatchList } from '../../../generated/types.ts';
import { resolveRouter } from '../../inference/handlers.ts';
import type { LoadedRouter } from '../../inference/routers.ts';
import { batchErrorsWire } from '../../jobs/batch-runner.ts';
import type { JobDeps } from '../../jobs/deps.ts';
import { gatewayOptions } from '../../pipeline/options.ts';
import { refuseUnreadHeaders } from '../../inference/unread-headers.ts';
import { forward, forwardable, isSuccess, queryWith, readAnswer, relay, routerOf, sendAnswer } from '../../jobs/forward.ts';
import { routeJudgesText } from '../../pipeline/guardrails/judges-text.ts';
import { routeHeadersOf } from '../../jobs/route-headers.ts';
import type { RequestContext } from '../../server/context.ts';
import { GatewayError } from '../../core/errors.ts';
import type { Handler } from '../../server/server.ts';
import type { BatchRecord } from '../../store/batch-store.ts';
import type { GatewayFileRecord } from '../../store/file-store.ts';
import { fileStorageFull, keepFile } from '../files/storage-full.ts';
import { callerOf, notFound, pathParam, sendOk } from '../http.ts';
import { policyConfigId } from '../../pipeline/limits/limit-stage.ts';
import type { ApiKeyRecord } from '../../store/api-key-store.ts';
import type { Metadata } from '../../core/gateway-headers.ts';

/** Both windows have the vendor's 24 hours to finish; `immediate` only says the gateway starts at once. */
const EXPIRY_SECONDS = 24 * 60 * 60;
const DEFAULT_BATCH_LIMIT = 20;

export function batchHandlers(deps: JobDeps): Record<string, Handler> {
  const { store, runner } = deps;

  async function toProvider(ctx: RequestContext, method: 'GET' | 'POST', suffix: string): Promise<void> {
    const id = pathParam(ctx, 'batch_id');
    const router = routerOf(ctx, deps);
    if (!forwardable(router, ctx, deps, 'batches')) throw notFound('batch', id, 'batch_id');
    await relay(ctx, await forward(deps, router, ctx, { method, upstreamPath: `/batches/${encodeURIComponent(id)}${suffix}` }));
  }

  /** The gateway file the batch's lines are read from; null when the answer (a provider error) was already sent. */
  async function inputContent(ctx: RequestContext, router: LoadedRouter, fileId: string): Promise<GatewayFileRecord | null> {
    const organisationId = callerOf(ctx).organisationId;
    const local = await store.files.get(organisationId, fileId);
    if (local !== null) {
      if (local.purpose !== 'batch') throw new GatewayError('invalid_request_body', `The input file must have purpose "batch", not "${local.purpose}".`, '/input_file_id');
      return local;
    }
    if (!forwardable(router, ctx, deps, 'files')) throw notFound('file', fileId, '/input_file_id');
    // The file lives at the provider: the gateway runs the batch from its own copy.
    const answer = await readAnswer(ctx, await forward(deps, router, ctx, { method: 'GET', upstreamPath: `/files/${encodeURIComponent(fileId)}/content` }));
    if (answer === null) return null;
    if (!isSuccess(answer.status)) {
      sendAnswer(ctx, answer);
      return null;
    }
    // The copy is kept like an upload, and counts like one.
    const copy = { organisationId, purpose: 'batch' as const, filename: `copy-of-${fileId}.jsonl`, content: answer.bytes };
    return keepFile(store.files, copy, deps.settings.fileStorageMaxBytes, `the provider's file ${fileId}, copied in to run the batch from,`, '/input_file_id');
  }

  /**
   * A gateway-managed batch keeps its results as files, which are never refused once the lines ran
   * (docs/jobs.md): so a batch is refused up front when the organisation's files already fill its
   * storage, or a tenant could grow it without bound by running batches.
   */
  async function refuseFullStorage(organisationId: string): Promise<void> {
    const max = deps.settings.fileStorageMaxBytes;
    if (max <= 0) return;
    const stored = await store.files.storedBytes(organisationId);
    if (stored >= max) throw fileStorageFull(stored, max, 'a batch\'s results are kept as files', '/input_file_id');
  }

  /**
   * Whether a usage-limits policy may count the batch's lines: the provider's batch would run where
   * the gateway never sees its usage, so such a batch is run by the gateway, each line charged.
   */
  function underBudget(caller: ApiKeyRecord, router: LoadedRouter, metadata: Metadata): boolean {
    const limits = deps.resolver.services.limits;
    if (limits === null) return false;
    return limits.budgetMayCount({
      apiKey: caller.id,
      workspaceId: caller.workspaceId,
      organisationId: caller.organisationId,
      config: policyConfigId(router.plan.configId),
      metadata,
      provider: null,
      virtualKey: null,
      model: null,
    });
  }

  return {
    'batches.create': async (ctx) => {
      const caller = callerOf(ctx);
      const body = (await ctx.json()) as BatchCreate;
      const router = resolveRouter(ctx.headers, deps.resolver);
      const localInput = await store.files.get(caller.organisationId, body.input_file_id);
      const options = gatewayOptions(ctx.headers, ctx, router);
      // Run here, not forwarded, where a budget must count the lines or the route's checks judge their text.
      if (body.completion_window !== 'immediate' && localInput === null && forwardable(router, ctx, deps, 'batches') && !underBudget(caller, router, options.metadata) && !routeJudgesText(router.plan.root)) {
        await relay(ctx, await forward(deps, router, ctx, { method: 'POST', upstreamPath: '/batches', body: await ctx.readBody() }));
        return;
      }
      // The headers each line will be routed with, checked now as a live request's are: one the route
      // would refuse (a provider-option or routing header no target reads) must not fail every line.
      if (options.headersJudgedPerCall) refuseUnreadHeaders(router.plan.root, options, deps.credentials());
      await refuseFullStorage(caller.organisationId);
      const content = await inputContent(ctx, router, body.input_file_id);
      if (content === null) return;
      const id = `batch_gw${randomBytes(12).toString('base64url')}`;
      const now = Date.now();
      const record = await store.batches.create({
        id,
        organisationId: caller.organisationId,
        endpoint: body.endpoint,
        inputFileId: body.input_file_id,
        contentFileId: content.id,
        completionWindow: body.completion_window,
        // One instant for both, so expires_at is created_at + 24 h exactly, even across a second boundary.
        createdAtMs: now,
        expiresAt: Math.floor(now / 1000) + EXPIRY_SECONDS,
        metadata: body.metadata ?? null,
        route: deps.sealer.seal(id, routeHeadersOf(ctx.headers), { keyId: caller.id, workspaceId: caller.workspaceId, organisationId: caller.organisationId }),
        leaseOwner: runner.owner,
        leaseExpiresMs: now + deps.settings.batchLeaseMs,
      });
      runner.run(id);
      sendOk(ctx, batchWire(record));
    },

    'batches.retrieve': async (ctx) => {
      const record = await store.batches.get(callerOf(ctx).organisationId, pathParam(ctx, 'batch_id'));
      if (record === null) return toProvider(ctx, 'GET', '');
      sendOk(ctx, batchWire(record));
    },

    'batches.cancel': async (ctx) => {
      const id = pathParam(ctx, 'batch_id');
      const result = await store.batches.requestCancel(callerOf(ctx).organisationId, id, Math.floor(Date.now() / 1000));
      if (result === null) return toProvider(ctx, 'POST', '/cancel');
      const { record, changed } = result;
      if (!changed && record.status !== 'cancelling') {
        throw new GatewayError('batch_not_cancellable', `The batch is ${record.status} and can no longer be cancelled.`, 'batch_id');
      }
      // This process stops its lines at once; another process running it learns through the change feed.
      runner.cancelRequested(id);
      if (changed) await store.changes.refresh();
      sendOk(ctx, batchWire(record));
    },

    'batches.list': async (ctx) => {
      const caller = callerOf(ctx);
      const query = ctx.query as { after?: string; limit?: number };
      const limit = query.limit ?? DEFAULT_BATCH_LIMIT;
      const local = await store.batches.list(caller.organisationId, { after: query.after, limit });
      const data = local.items.map(batchWire);
      const router = routerOf(ctx, deps);
      // The gateway's batches come first; past them (or after a provider batch's ID) the provider's list continues.
      if (!forwardable(router, ctx, deps, 'batches') || local.hasMore || data.length === limit) {
        sendOk(ctx, listPage(data, local.hasMore || (data.length === limit && forwardable(router, ctx, deps, 'batches'))));
        return;
      }
      const upstreamQuery = queryWith(ctx.rawQuery, { limit: String(limit - data.length), after: local.afterFound ? null : query.after ?? null });
      const answer = await readAnswer(ctx, await forward(deps, router, ctx, { method: 'GET', upstreamPath: `/batches${upstreamQuery}` }));
      if (answer === null) return;
      const theirs = answer.json as { data?: unknown; has_more?: unknown } | undefined;
      if (!isSuccess(answer.status) || !Array.isArray(theirs?.data)) {
        sendAnswer(ctx, answer);
        return;
      }
      sendOk(ctx, listPage([...data, ...(theirs.data as BatchWire[])], theirs.has_more === true));
    },
  };
}

export function batchWire(record: BatchRecord): BatchWire {
  return {
    id: record.id,
    object: 'batch',
    endpoint: record.endpoint,
    errors: batchErrorsWire(record.errors),
    input_file_id: record.inputFileId,
    completion_window: record.completionWindow,
    status: record.status,
    output_file_id: record.outputFileId,
    error_file_id: record.errorFileId,
    created_at: record.createdAt,
    in_progress_at: record.inProgressAt,
    expires_at: record.expiresAt,
    finalizing_at: record.finalizingAt,
    completed_at: record.completedAt,
    failed_at: record.failedAt,
    expired_at: record.expiredAt,
    cancelling_at: record.cancellingAt,
    cancelled_at: record.cancelledAt,
    request_counts: record.requestCounts,
    metadata: record.metadata,
  };
}

function listPage(data: BatchWire[], hasMore: boolean): BatchList {
  return { object: 'list', data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null };
}
