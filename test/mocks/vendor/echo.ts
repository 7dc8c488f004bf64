// Every path the mock does not implement answers with what it received, so pass-through tests can
// compare method, path, query, headers and body byte for byte.
import type { MockContext } from './context.ts';
import { sendJson } from './respond.ts';

export function echo(ctx: MockContext): Promise<void> {
  const { record } = ctx;
  const query: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(record.query)) {
    const seen = query[name];
    query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return sendJson(ctx, 200, {
    instance: ctx.label,
    method: record.method,
    path: record.path,
    query,
    raw_query: record.query,
    headers: record.headers,
    raw_headers: record.rawHeaders,
    body: record.body,
    body_base64: record.bodyBytes.toString('base64'),
  });
}
