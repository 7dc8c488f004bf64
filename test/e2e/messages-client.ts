// What the e2e suites of the messages API share: the official Anthropic SDK pointed at a gateway
// with a config, a message's text, and the request record a trace id finds.
import Anthropic from '@anthropic-ai/sdk';
import { until } from './serve-processes.ts';

/** The SDK against `gatewayUrl`, routed by the saved config `config`, each request under `trace`. Its own key header goes nowhere: the targets have their credentials. */
export function messagesClient(gatewayUrl: string, gatewayKey: string, config: string, trace: string): Anthropic {
  return new Anthropic({ baseURL: gatewayUrl, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': gatewayKey, 'x-gateway-config': config, 'x-gateway-trace-id': trace } });
}

/** The text blocks of a message, joined. */
export function textOf(message: Anthropic.Message): string {
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** The request record of `trace`, once the log wrote it. */
export async function loggedRecord(gatewayUrl: string, gatewayKey: string, trace: string): Promise<any> {
  const read = async () => ((await (await fetch(`${gatewayUrl}/v1/logs?trace_id=${trace}`, { headers: { 'x-gateway-api-key': gatewayKey } })).json()) as { data: any[] }).data;
  const records = await until(read, (found) => found.length > 0, 5000);
  if (records.length === 0) throw new Error(`no record of ${trace}`);
  return records[0];
}
