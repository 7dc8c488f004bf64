// The request's signal is the one way to cancel an exchange (client gone, attempt timed out): it
// works before dispatch, while queued, before headers and during the body, and the rejection is
// the signal's own reason so the router can tell a timeout from a disconnect.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startVendorMock } from '../mocks/vendor/index.ts';
import type { VendorMock } from '../mocks/vendor/index.ts';
import { closeAllPools, configurePools, DEFAULT_POOL_SETTINGS } from '../../runtime/upstream/pools.ts';
import { send } from '../../runtime/upstream/send.ts';
import { chatStream, listModels } from './upstream-requests.ts';

let mock: VendorMock;

beforeAll(async () => {
  mock = await startVendorMock();
});

afterEach(async () => {
  await closeAllPools();
  configurePools(DEFAULT_POOL_SETTINGS);
});

afterAll(async () => {
  await mock.close();
});

function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

async function newRequestSeen(before: number): Promise<void> {
  while (mock.requests.length === before) await new Promise((r) => setTimeout(r, 5));
}

describe('abort through the request signal', () => {
  it('never dispatches when the signal is already aborted', async () => {
    const before = mock.requests.length;
    const controller = new AbortController();
    const reason = new Error('already gone');
    controller.abort(reason);
    expect(await rejection(send(listModels(mock.url, controller.signal)))).toBe(reason);
    await new Promise((r) => setTimeout(r, 50));
    expect(mock.requests.length).toBe(before);
  });

  it('rejects with the reason and closes the provider socket before headers', async () => {
    mock.script({ delayMs: 2000 });
    const controller = new AbortController();
    const before = mock.requests.length;
    const pending = rejection(send(listModels(mock.url, controller.signal)));
    await newRequestSeen(before);
    const reason = new Error('attempt timed out');
    const started = Date.now();
    controller.abort(reason);
    expect(await pending).toBe(reason);
    expect(await mock.requests.at(-1)!.outcome).toBe('client-closed');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('rejects with a non-Error reason as given', async () => {
    mock.script({ delayMs: 1000 });
    const controller = new AbortController();
    const before = mock.requests.length;
    const pending = rejection(send(listModels(mock.url, controller.signal)));
    await newRequestSeen(before);
    controller.abort('cancelled by test');
    expect(await pending).toBe('cancelled by test');
  });

  it('rejects with AbortSignal.timeout reasons', async () => {
    mock.script({ delayMs: 1000 });
    const error = await rejection(send(listModels(mock.url, AbortSignal.timeout(100))));
    expect((error as DOMException).name).toBe('TimeoutError');
  });

  it('rejects the body consumer with the reason during the body', async () => {
    mock.script({ stallAfter: 2 });
    const controller = new AbortController();
    const response = await send(chatStream(mock.url, 30, controller.signal));
    const reading = rejection(response.readAll());
    await new Promise((r) => setTimeout(r, 50));
    const reason = new Error('client left');
    controller.abort(reason);
    expect(await reading).toBe(reason);
    expect(await mock.requests.at(-1)!.outcome).toBe('client-closed');
  });

  it('fails a later consumer with the reason when aborted while the body waits', async () => {
    mock.script({ stallAfter: 2 });
    const controller = new AbortController();
    const response = await send(chatStream(mock.url, 30, controller.signal));
    const reason = new Error('router gave up');
    controller.abort(reason);
    expect(await rejection(response.readAll())).toBe(reason);
    expect(await mock.requests.at(-1)!.outcome).toBe('client-closed');
    response.discard(); // still safe afterwards
  });

  it('cancels a request still queued behind a busy connection, and the pool keeps working', async () => {
    configurePools({ connections: 1 });
    mock.script({ stallAfter: 1 });
    const busy = await send(chatStream(mock.url, 30));
    const controller = new AbortController();
    const before = mock.requests.length;
    const queued = rejection(send(listModels(mock.url, controller.signal)));
    await new Promise((r) => setTimeout(r, 50));
    const reason = new Error('queued too long');
    controller.abort(reason);
    expect(await queued).toBe(reason);
    busy.discard();
    const next = await send(listModels(mock.url));
    expect(next.status).toBe(200);
    await next.readAll();
    // Only `next` reached the provider: the cancelled request was dropped before it was written.
    expect(mock.requests.slice(before)).toHaveLength(1);
  });
});

describe('send progress: whether the provider has the request', () => {
  it('is set once the request is written, stays set when the request is aborted then, and is cleared by an answer', async () => {
    mock.script({ delayMs: 2000 });
    const controller = new AbortController();
    const progress = { awaitingAnswer: false };
    const before = mock.requests.length;
    const pending = rejection(send({ ...listModels(mock.url, controller.signal), progress }));
    await newRequestSeen(before);
    expect(progress.awaitingAnswer).toBe(true);
    controller.abort(new Error('client left'));
    await pending;
    expect(progress.awaitingAnswer).toBe(true);
    const answered = { awaitingAnswer: false };
    const response = await send({ ...listModels(mock.url), progress: answered });
    expect(answered.awaitingAnswer).toBe(false);
    await response.readAll();
  });

  it('stays set over a 2xx answer until its body begins (a stream\'s first token), and is cleared by a refusal\'s status line', async () => {
    mock.script({ stallAfter: 0 });
    const working = { awaitingAnswer: false };
    const silent = await send({ ...chatStream(mock.url, 5), progress: working });
    expect(silent.status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    expect(working.awaitingAnswer).toBe(true);
    silent.discard();
    const streaming = { awaitingAnswer: false };
    const stream = await send({ ...chatStream(mock.url, 5), progress: streaming });
    await stream.readAll();
    expect(streaming.awaitingAnswer).toBe(false);
    mock.script({ status: 429 });
    const refused = { awaitingAnswer: false };
    const refusal = await send({ ...chatStream(mock.url, 5), progress: refused });
    expect(refusal.status).toBe(429);
    expect(refused.awaitingAnswer).toBe(false);
    refusal.discard();
  });

  it('is never set for a request aborted while it waited for a connection, nor for a refused connection', async () => {
    configurePools({ connections: 1 });
    mock.script({ stallAfter: 1 });
    const busy = await send(chatStream(mock.url, 30));
    const controller = new AbortController();
    const queued = { awaitingAnswer: false };
    const pending = rejection(send({ ...listModels(mock.url, controller.signal), progress: queued }));
    await new Promise((r) => setTimeout(r, 50));
    controller.abort(new Error('queued too long'));
    await pending;
    expect(queued.awaitingAnswer).toBe(false);
    busy.discard();
    const refused = { awaitingAnswer: false };
    await rejection(send({ ...listModels('http://127.0.0.1:1'), progress: refused }));
    expect(refused.awaitingAnswer).toBe(false);
  });
});
