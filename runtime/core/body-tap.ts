// What watches an answer's bytes as they reach the client (usage metering, a cache storing the
// answer, a check judging it), and the responses that tell it: the gateway's own response, and a
// sink standing in for it while a stream is rewritten (providers/shared/mapped-response.ts). At the
// bottom of runtime/ so that every layer that writes an answer can tell one; attaching one is the
// pipeline's (runtime/pipeline/body-tap.ts).

export interface BodyTap {
  write(chunk: Buffer | string): void;
  /** The body is complete; not called when it broke off. */
  end(): void;
  /**
   * The body stopped before its end: the client left, or the provider's answer broke. Called once,
   * instead of end, before the request's record is handed on.
   */
  brokeOff(): void;
  /**
   * The bytes the client sent on a connection carried both ways (a WebSocket session,
   * runtime/upstream/tunnel.ts), for a tap that reads them; absent on one that does not.
   */
  sent?(chunk: Buffer): void;
}

/** A response that feeds a tap from its writes. */
export interface TappableResponse {
  bodyTap: BodyTap | null;
}
