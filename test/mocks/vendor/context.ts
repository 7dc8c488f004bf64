// What every endpoint handler of the vendor mock receives for one request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RecordedRequest, ScriptStep } from './types.ts';

export interface MockContext {
  req: IncomingMessage;
  res: ServerResponse;
  record: RecordedRequest;
  /** The scripted step this request took, if any. */
  step: ScriptStep | null;
  label: string;
  /** 1 for the first request this mock instance saw. */
  ordinal: number;
  startedAt: number;
  models: readonly string[];
  /** Marks the socket as destroyed on purpose, so the outcome reads `mock-destroyed`. */
  destroyOnPurpose(): void;
}

/** The parsed JSON body as an object, or null when the body is not a JSON object. */
export function jsonObject(ctx: MockContext): Record<string, unknown> | null {
  const value = ctx.record.json;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

let sequence = 0;
/** Vendor-style ids (`chatcmpl-…`, `cmpl-…`, `req_…`): unique within the process, readable in failures. */
export function vendorId(prefix: string): string {
  sequence += 1;
  return `${prefix}${Date.now().toString(36)}${sequence.toString(36).padStart(6, '0')}`;
}
