// A realtime API's client: Node's own WebSocket (undici's), which takes handshake headers beside its
// protocols (a browser's cannot), keeping every event it got.
export interface RealtimeClient {
  socket: WebSocket;
  events: Array<Record<string, unknown>>;
  /** The first event of this type (already here, or the next to come). */
  event(type: string): Promise<Record<string, unknown>>;
  closed: Promise<CloseEvent>;
}

/** Opens a session at `url` (`http://host:port/v1/realtime?model=…`) with `headers` on its handshake; rejects when it is refused. */
export function connectRealtime(url: string, headers: Record<string, string>): Promise<RealtimeClient> {
  const socket = new WebSocket(url.replace(/^http/, 'ws'), { protocols: ['realtime'], headers } as unknown as string[]);
  const events: Array<Record<string, unknown>> = [];
  const waiting: Array<{ type: string; resolve: (event: Record<string, unknown>) => void }> = [];
  socket.addEventListener('message', (message) => {
    const event = JSON.parse(String(message.data)) as Record<string, unknown>;
    events.push(event);
    for (const wait of waiting.filter((w) => w.type === event.type)) {
      waiting.splice(waiting.indexOf(wait), 1);
      wait.resolve(event);
    }
  });
  const closed = new Promise<CloseEvent>((resolve) => socket.addEventListener('close', resolve));
  return new Promise((resolve, reject) => {
    socket.addEventListener('open', () => resolve({
      socket,
      events,
      closed,
      event: (type) => {
        const seen = events.find((e) => e.type === type);
        return seen !== undefined ? Promise.resolve(seen) : new Promise((found) => waiting.push({ type, resolve: found }));
      },
    }));
    socket.addEventListener('error', () => reject(new Error('the WebSocket handshake failed')));
  });
}
