// A stand-in OpenTelemetry collector for tests: accepts what an OTLP/HTTP exporter really sends to
// /v1/traces (the JSON encoding of ExportTraceServiceRequest) and decodes it into plain spans.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  status: { code?: number };
  serviceName: string | undefined;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Content types of the export requests, as sent. */
  contentTypes: string[];
  /** While set, exports are refused with this status (a collector that is down or rejects them). */
  refuseWith: number | null;
  /** Export batches refused for a string that is not UTF-8 (as a collector refuses them). */
  refusedBatches: number;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
type KeyValue = { key: string; value: AnyValue };

function valueOf(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return '';
}

function attributes(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  let receiver: OtlpReceiver;
  const server: Server = createServer((req, res) => {
    if (receiver.refuseWith !== null) {
      req.resume();
      res.writeHead(receiver.refuseWith, { 'content-type': 'application/json' }).end('{"code":3,"message":"refused by the test"}');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url !== '/v1/traces' || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      contentTypes.push(String(req.headers['content-type']));
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: Array<{ resource?: { attributes?: KeyValue[] }; scopeSpans: Array<{ spans: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: KeyValue[]; status?: { code?: number } }> }> }>;
      };
      // As a collector's protobuf JSON reader does: OTLP strings are UTF-8, and a lone surrogate's
      // escape is none, so the whole batch is refused (400, nothing kept).
      const strings = JSON.stringify(body).match(/\\ud[89a-f][0-9a-f]{2}/gi) ?? [];
      if (strings.length > 0) {
        receiver.refusedBatches++;
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"code":3,"message":"invalid UTF-8 in a string field"}');
        return;
      }
      for (const resource of body.resourceSpans) {
        const serviceName = attributes(resource.resource?.attributes)['service.name'] as string | undefined;
        for (const scope of resource.scopeSpans) {
          for (const span of scope.spans) {
            spans.push({ traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId ?? '', name: span.name, kind: span.kind, attributes: attributes(span.attributes), status: span.status ?? {}, serviceName });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver = { url: `http://127.0.0.1:${port}`, spans, contentTypes, refuseWith: null, refusedBatches: 0, close: () => new Promise((resolve) => server.close(() => resolve())) };
  return receiver;
}
