// Usage-alert webhook delivery against a real HTTP receiver on 127.0.0.1: transient failures are
// tried again until delivered, a refusal is not, no more than `concurrency` POSTs are open at once,
// a full queue drops (and logs) instead of growing, and close() sends what still waits a retry.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayLogger, LogFields } from '../../runtime/core/log.ts';
import { type UsageAlert, UsageAlerts, type WebhookOptions } from '../../runtime/pipeline/limits/usage-alerts.ts';

type Reply = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Receiver {
  url: string;
  /** Every POST body received, in order (failed ones included). */
  bodies: string[];
  open: number;
  mostOpen: number;
  close(): Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function receiver(reply: Reply): Promise<Receiver> {
  const state = { bodies: [] as string[], open: 0, mostOpen: 0 };
  const server = createServer((req, res) => {
    state.open++;
    state.mostOpen = Math.max(state.mostOpen, state.open);
    res.on('close', () => state.open--);
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      state.bodies.push(body);
      reply(req, res, body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/alerts`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

function recordingLogger(): GatewayLogger & { events: Array<{ event: string; fields: LogFields }> } {
  const events: Array<{ event: string; fields: LogFields }> = [];
  const push = (event: string, fields: LogFields = {}) => events.push({ event, fields });
  return { events, info: push, warn: push, error: push };
}

function alert(policy: string): UsageAlert {
  return { policy_id: policy, type: 'cost', group: { api_key: 'k' }, period: 'm2026-11', used: 8, alert_threshold: 5, credit_limit: 10, at: '2026-11-27T00:00:00.000Z' };
}

const FAST: WebhookOptions = { retryDelaysMs: [10, 20], timeoutMs: 2000 };

async function until(done: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('usage alert webhook', () => {
  it('tries a 503, a 429 and a dropped connection again, and delivers the alert once it is accepted', async () => {
    let calls = 0;
    const hook = await receiver((_req, res) => {
      calls++;
      if (calls === 1) res.writeHead(503).end();
      else if (calls === 2) res.destroy();
      else res.writeHead(200).end('ok');
    });
    const logger = recordingLogger();
    const alerts = new UsageAlerts(logger, null, hook.url, FAST);
    alerts.emit(alert('p1'));
    await until(() => alerts.pending === 0);
    expect(hook.bodies).toHaveLength(3);
    expect(JSON.parse(hook.bodies[2])).toEqual({ event: 'usage_limit_alert', ...alert('p1') });
    const failures = logger.events.filter((e) => e.event === 'usage_alert_webhook_failed').map((e) => e.fields);
    expect(failures).toEqual([expect.objectContaining({ policy_id: 'p1', status: 503, tries: 1, retrying: true }), expect.objectContaining({ policy_id: 'p1', tries: 2, retrying: true })]);
  });

  it('gives up after the last try, and never tries a refusal (4xx) again', async () => {
    const hook = await receiver((req, res) => res.writeHead(req.url === '/alerts' ? 500 : 400).end());
    const logger = recordingLogger();
    const alerts = new UsageAlerts(logger, null, hook.url, FAST);
    alerts.emit(alert('p2'));
    await until(() => alerts.pending === 0);
    expect(hook.bodies).toHaveLength(3);
    expect(logger.events.at(-1)).toMatchObject({ event: 'usage_alert_webhook_failed', fields: { tries: 3, retrying: false } });

    const refusing = new UsageAlerts(recordingLogger(), null, hook.url.replace('/alerts', '/bad'), FAST);
    const before = hook.bodies.length;
    refusing.emit(alert('p3'));
    await until(() => refusing.pending === 0);
    expect(hook.bodies.length - before).toBe(1);
  });

  it('keeps at most `concurrency` POSTs open, delivers every alert of a burst, and drops past the queue bound', async () => {
    const held: ServerResponse[] = [];
    const hook = await receiver((_req, res) => held.push(res));
    const logger = recordingLogger();
    const alerts = new UsageAlerts(logger, null, hook.url, { ...FAST, concurrency: 3, maxPending: 10 });
    for (let i = 0; i < 12; i++) alerts.emit(alert(`burst-${i}`));
    // Ten fit (three open, seven queued); the last two are dropped and logged.
    expect(logger.events.filter((e) => e.event === 'usage_alert_webhook_dropped').map((e) => e.fields.policy_id)).toEqual(['burst-10', 'burst-11']);
    await until(() => held.length === 3);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(hook.open).toBe(3);
    while (alerts.pending > 0) {
      held.splice(0).forEach((res) => res.writeHead(204).end());
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(hook.mostOpen).toBe(3);
    // Three at a time, so they may arrive in any order: each once.
    expect(hook.bodies.map((b) => JSON.parse(b).policy_id).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `burst-${i}`).sort());
  });

  it('close() sends an alert waiting out a retry delay at once, and waits for it', async () => {
    let calls = 0;
    const hook = await receiver((_req, res) => res.writeHead(++calls === 1 ? 503 : 200).end());
    const logger = recordingLogger();
    const alerts = new UsageAlerts(logger, null, hook.url, { retryDelaysMs: [60_000], timeoutMs: 2000 });
    alerts.emit(alert('p4'));
    // The first try failed and the alert waits a minute for its next.
    await until(() => logger.events.some((e) => e.event === 'usage_alert_webhook_failed'));
    expect(alerts.pending).toBe(1);
    const started = Date.now();
    await alerts.close();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(hook.bodies).toHaveLength(2);
    expect(alerts.pending).toBe(0);
  });

  it('without a webhook, an alert is only logged and counted', async () => {
    const logger = recordingLogger();
    const alerts = new UsageAlerts(logger, null, null);
    alerts.emit(alert('p5'));
    expect(alerts.pending).toBe(0);
    expect(logger.events).toEqual([{ event: 'usage_limit_alert', fields: alert('p5') }]);
    await alerts.close();
  });
});
