// The HTTP calls checks make (webhook, log, a jwt check's key set): through the upstream layer's pools,
// whose connections resolve through the custom-host safety policy, after the policy has judged the
// URL, so a check can never be pointed at a cloud metadata address. Bounded by a timeout and by the
// request's own signal.
import { send } from '../../upstream/send.ts';
import type { HostPolicy } from '../../providers/host-policy.ts';

export interface HookHttpAnswer {
  status: number;
  body: Buffer;
}

/** `body`: JSON bytes to POST (the checks of a phase share one serialisation of their event). */
export async function hookHttp(policy: HostPolicy, url: URL, param: string, init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: Buffer; timeoutMs: number; signal?: AbortSignal }): Promise<HookHttpAnswer> {
  await policy.check(url, param);
  const timeout = AbortSignal.timeout(init.timeoutMs);
  const signal = init.signal === undefined ? timeout : AbortSignal.any([timeout, init.signal]);
  const body = init.body ?? null;
  const headers: Record<string, string> = { accept: 'application/json', ...lowerCased(init.headers ?? {}) };
  if (body !== null) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.length);
  }
  try {
    const response = await send({ origin: url.origin, path: `${url.pathname}${url.search}`, method: init.method, headers, body, signal, timeoutMs: init.timeoutMs });
    return { status: response.status, body: await response.readAll() };
  } catch (error) {
    if (timeout.aborted) throw new Error(`no answer from ${url.host} within ${init.timeoutMs} ms`);
    throw error;
  }
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
