// `/v1/logs` (admin scope): the request log, newest first, filtered as the query says. An admin key
// sees its organisation's records and those of requests that never authenticated (401s, unknown
// paths), which belong to no organisation.
import type { RequestLogList } from '../../../generated/types.ts';
import type { RequestLogFilter, RequestLogStore } from '../../store/request-log-store.ts';
import type { Handler } from '../../server/server.ts';
import { notFound, pathParam, requireAdmin, sendOk } from '../http.ts';
import { GatewayError } from '../../core/errors.ts';
import { recordedModel } from '../../core/request-record.ts';
import { canonicalProvider } from '../../../compiler/config/providers.ts';
import { requestLogWire } from './wire.ts';

const METADATA_PREFIX = 'metadata.';
const DEFAULT_LIMIT = 50;

export function logHandlers(logs: RequestLogStore): Record<string, Handler> {
  return {
    'logs.list': async (ctx) => {
      const caller = requireAdmin(ctx);
      const query = ctx.query;
      const limit = typeof query.limit === 'number' ? query.limit : DEFAULT_LIMIT;
      const page = await logs.list(filterOf(query, caller.organisationId), { after: stringOf(query.after), limit });
      const data = page.records.map(requestLogWire);
      // A page that stopped at its scan bound may hold fewer records (even none): last_id is where it stopped.
      sendOk(ctx, { object: 'list', data, has_more: page.hasMore, last_id: page.next ?? (data.length > 0 ? data[data.length - 1].id : null) } satisfies RequestLogList);
    },

    'logs.retrieve': async (ctx) => {
      const caller = requireAdmin(ctx);
      const id = pathParam(ctx, 'log_id');
      const record = await logs.get(id, caller.organisationId);
      if (record === null) throw notFound('request log', id, 'log_id');
      sendOk(ctx, requestLogWire(record));
    },
  };
}

/** The validated query (schema/requests/request-log-list-query.json) as a store filter; `visibleTo` absent: every organisation (the CLI reads the store as its operator). */
export function filterOf(query: Readonly<Record<string, unknown>>, visibleTo?: string): RequestLogFilter {
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (name.startsWith(METADATA_PREFIX) && typeof value === 'string') metadata[name.slice(METADATA_PREFIX.length)] = value;
  }
  // A reversed range matches nothing, whatever the log holds: said, not answered with an empty page.
  if (typeof query.from === 'number' && typeof query.to === 'number' && query.from > query.to) {
    throw new GatewayError('invalid_query', `from (${query.from}) is after to (${query.to}): no record can be in that range.`, '/from');
  }
  return {
    traceId: stringOf(query.trace_id),
    status: statusRange(stringOf(query.status)),
    // Records carry canonical names: `provider=openai` finds the vendor's.
    provider: providerOf(query.provider),
    // Records keep a long model name shortened; the filter shortens it the same way to find them.
    model: typeof query.model === 'string' ? recordedModel(query.model) : undefined,
    configId: stringOf(query.config_id),
    apiKeyId: stringOf(query.api_key_id),
    cacheStatus: stringOf(query.cache_status),
    fromMs: typeof query.from === 'number' ? query.from * 1000 : undefined,
    // `to` is a whole second: every record within it.
    toMs: typeof query.to === 'number' ? query.to * 1000 + 999 : undefined,
    metadata,
    visibleTo,
  };
}

/** `429` → 429..429; `4xx` → 400..499. */
function statusRange(text: string | undefined): { min: number; max: number } | undefined {
  if (text === undefined) return undefined;
  if (text.endsWith('xx')) {
    const base = Number(text[0]) * 100;
    return { min: base, max: base + 99 };
  }
  return { min: Number(text), max: Number(text) };
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function providerOf(value: unknown): string | undefined {
  const name = stringOf(value);
  return name === undefined ? undefined : canonicalProvider(name);
}
