// `gateway contract-check --base-url URL --api-key KEY [--write] [--json]`: calls a running gateway
// through the generated client with response checking on, and reports every answer that does not
// match the schema schema/api.json names for it. Read-only by default: every list, then the first
// record of each; `--write` also creates, reads, updates and deletes one of each resource under
// scratch IDs (and a scratch workspace where a resource has one), deleting what it made even when a
// step fails. Exit 0: every answer matched; 1: a violation or an unexpected error answer; 2: usage.
import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ContractError, GatewayClient, GatewayError } from '../../generated/client/client.ts';
import { validateError } from '../../generated/client/validators.js';

const USAGE = `Usage: gateway contract-check --base-url URL --api-key KEY [--write] [--json]

Calls every read-only operation of a running gateway with the generated client and checks each answer
against its schema (schema/api.json). Prints one line per operation and exits 1 on any violation.

Options:
  --base-url URL   where the gateway answers (e.g. http://127.0.0.1:8787)
  --api-key KEY    an admin-scope gateway key
  --write          also create, read, update and delete one of each resource (scratch IDs, deleted after)
  --json           one JSON object instead of the table
  -h, --help       this help`;

export type CheckOutcome = 'ok' | 'violation' | 'error' | 'skipped';

export interface CheckResult {
  operation: string;
  outcome: CheckOutcome;
  detail: string;
}

export async function runContractCheck(argv: string[]): Promise<number> {
  let values: { 'base-url'?: string; 'api-key'?: string; write?: boolean; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, write: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`gateway contract-check: ${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values['base-url'] === undefined || values['api-key'] === undefined) {
    process.stderr.write(`gateway contract-check: --base-url and --api-key are required\n\n${USAGE}\n`);
    return 2;
  }
  const results = await contractCheck(values['base-url'], values['api-key'], { write: values.write === true, progress: values.json !== true && process.stderr.isTTY ? (line) => process.stderr.write(line) : null });
  const failed = results.filter((r) => r.outcome === 'violation' || r.outcome === 'error');
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify({ ok: failed.length === 0, results })}\n`);
  } else {
    const width = Math.max(...results.map((r) => r.operation.length));
    const lines = results.map((r) => `${r.operation.padEnd(width)}  ${r.outcome.padEnd(9)}  ${r.detail}`);
    const counts = (['ok', 'violation', 'error', 'skipped'] as const).map((o) => `${results.filter((r) => r.outcome === o).length} ${o}`).join(', ');
    process.stdout.write(`${lines.join('\n')}\n\n${results.length} operations checked: ${counts}\n`);
  }
  return failed.length === 0 ? 0 : 1;
}

export interface ContractCheckOptions {
  write: boolean;
  /** Where a running count goes (stderr on a terminal run); null for none. */
  progress: ((text: string) => void) | null;
  /** A fetch to call through (tests record what was sent). */
  fetch?: typeof fetch;
}

type Json = Record<string, unknown>;

export async function contractCheck(baseURL: string, apiKey: string, options: ContractCheckOptions): Promise<CheckResult[]> {
  const client = new GatewayClient({ baseURL, apiKey, validateResponses: true, maxRetries: 1, timeout: 30_000, fetch: options.fetch });
  const results: CheckResult[] = [];
  /** Runs one call; the answer's schema check happens in the client (ContractError). */
  const check = async <T>(operation: string, call: () => PromiseLike<T>, expect: { status?: number } = {}): Promise<T | null> => {
    const result = await outcomeOf(operation, call, expect);
    results.push(result.result);
    options.progress?.(`\rchecked ${results.length} operations`);
    return result.value;
  };
  const skip = (operation: string, detail: string): void => {
    results.push({ operation, outcome: 'skipped', detail });
  };

  await check('health.get', () => client.health.get());
  const metrics = await outcomeOf('metrics.get', () => client.metrics.get(), {});
  if (metrics.refused?.status === 401) results.push({ operation: 'metrics.get', outcome: 'skipped', detail: 'GATEWAY_METRICS_KEY is set: /metrics takes its own key' });
  else results.push(metrics.value !== null && !metrics.value.includes('# TYPE') ? { operation: 'metrics.get', outcome: 'violation', detail: 'not the Prometheus text format (no # TYPE line)' } : metrics.result);

  // Every list, then the first record it holds.
  const first = (page: unknown): Json | null => {
    const data = (page as { data?: unknown[] } | null)?.data;
    return Array.isArray(data) && data.length > 0 ? (data[0] as Json) : null;
  };
  const idOf = (record: Json | null): string | null => (record !== null && typeof record.id === 'string' ? record.id : null);
  const readable: [string, () => PromiseLike<unknown>, ((id: string) => [string, () => PromiseLike<unknown>][])][] = [
    ['configs.list', () => client.configs.list(), (id) => [['configs.retrieve', () => client.configs.retrieve(id)]]],
    ['apiKeys.list', () => client.apiKeys.list(), (id) => [['apiKeys.retrieve', () => client.apiKeys.retrieve(id)]]],
    ['virtualKeys.list', () => client.virtualKeys.list(), (id) => [['virtualKeys.retrieve', () => client.virtualKeys.retrieve(id)]]],
    ['guardrails.list', () => client.guardrails.list(), (id) => [['guardrails.retrieve', () => client.guardrails.retrieve(id)]]],
    ['prompts.list', () => client.prompts.list(), (id) => [['prompts.retrieve', () => client.prompts.retrieve(id)], ['prompts.listVersions', () => client.prompts.listVersions(id)]]],
    ['policies.rateLimits.list', () => client.policies.rateLimits.list(), (id) => [['policies.rateLimits.retrieve', () => client.policies.rateLimits.retrieve(id)], ['policies.rateLimits.usage', () => client.policies.rateLimits.usage(id)]]],
    ['policies.usageLimits.list', () => client.policies.usageLimits.list(), (id) => [['policies.usageLimits.retrieve', () => client.policies.usageLimits.retrieve(id)], ['policies.usageLimits.usage', () => client.policies.usageLimits.usage(id)]]],
    ['logs.list', () => client.logs.list({ limit: 5 }), (id) => [['logs.retrieve', () => client.logs.retrieve(id)]]],
    ['batches.list', () => client.batches.list({ limit: 5 }), (id) => [['batches.retrieve', () => client.batches.retrieve(id)]]],
    ['files.list', () => client.files.list({ limit: 5 }), (id) => [['files.retrieve', () => client.files.retrieve(id)]]],
    ['fineTuning.jobs.list', () => client.fineTuning.jobs.list({ limit: 5 }), (id) => [['fineTuning.jobs.retrieve', () => client.fineTuning.jobs.retrieve(id)], ['fineTuning.jobs.checkpoints', () => client.fineTuning.jobs.checkpoints(id)]]],
  ];
  for (const [operation, list, reads] of readable) {
    const listed = await outcomeOf(operation, list, {});
    // Fine-tuning jobs live at the provider: the list is routed, and a gateway with no provider for it answers 400.
    const unrouted = operation === 'fineTuning.jobs.list' && listed.refused?.code === 'missing_provider';
    results.push(unrouted ? { operation, outcome: 'skipped', detail: 'routed to a provider, and none is set (x-gateway-provider or a config)' } : listed.result);
    const id = idOf(first(listed.value));
    for (const [read, call] of reads(id ?? '-')) {
      if (id === null) skip(read, unrouted ? 'the list was skipped' : 'no record to read');
      else await check(read, call);
    }
  }
  // An error answer has a contract too.
  await check('configs.retrieve (missing)', () => client.configs.retrieve(`contract-check-missing-${randomBytes(4).toString('hex')}`), { status: 404 });

  if (options.write) await writeChecks(client, check);
  options.progress?.('\n');
  return results;
}

type Check = <T>(operation: string, call: () => PromiseLike<T>, expect?: { status?: number }) => Promise<T | null>;

/** Create → read → change → delete, per resource, under scratch IDs; cleanup runs whatever failed. */
async function writeChecks(client: GatewayClient, check: Check): Promise<void> {
  const scratch = `contract-check-${randomBytes(4).toString('hex')}`;
  // Workspaces are UUIDs: a fresh one holds nothing else, so the scratch records touch no real workspace.
  const workspace = { workspace_id: randomUUID() };
  const config = { strategy: { mode: 'fallback' }, targets: [{ provider: 'vendor', api_key: 'sk-contract-check-0000' }, { provider: 'vendor', api_key: 'sk-contract-check-0001' }] };

  const savedConfig = await check('configs.create', () => client.configs.create({ id: scratch, config }));
  if (savedConfig !== null) {
    try {
      await check('configs.retrieve', () => client.configs.retrieve(scratch));
      await check('configs.update', () => client.configs.update(scratch, { config: { ...config, retry: { attempts: 1 } } }));
      await check('configs.simulate', () => client.configs.simulate(scratch, { request: { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] } }));
    } finally {
      await check('configs.delete', () => client.configs.delete(scratch));
    }
  }

  const guardrail = await check('guardrails.create', () => client.guardrails.create({ id: scratch, checks: [{ id: 'default.wordCount', parameters: { minWords: 1 } }] }));
  if (guardrail !== null) {
    try {
      await check('guardrails.retrieve', () => client.guardrails.retrieve(scratch));
      await check('guardrails.update', () => client.guardrails.update(scratch, { checks: [{ id: 'default.wordCount', parameters: { minWords: 2 } }], deny: true }));
    } finally {
      await check('guardrails.delete', () => client.guardrails.delete(scratch));
    }
  }

  const prompt = await check('prompts.create', () => client.prompts.create({ id: scratch, name: scratch, messages: [{ role: 'user', content: 'Hello {{name}}' }] }));
  if (prompt !== null) {
    try {
      await check('prompts.retrieve', () => client.prompts.retrieve(scratch));
      await check('prompts.update', () => client.prompts.update(scratch, { messages: [{ role: 'user', content: 'Hi {{name}}' }] }));
      await check('prompts.render', () => client.prompts.render(scratch, { variables: { name: 'contract' } }));
      await check('prompts.listVersions', () => client.prompts.listVersions(scratch));
    } finally {
      await check('prompts.delete', () => client.prompts.delete(scratch));
    }
  }

  const virtualKey = await check('virtualKeys.create', () => client.virtualKeys.create({ provider: 'vendor', name: scratch, slug: scratch, api_key: 'sk-contract-check-0002' }));
  const virtualKeyId = (virtualKey as { id?: string } | null)?.id;
  if (virtualKeyId !== undefined) {
    try {
      await check('virtualKeys.retrieve', () => client.virtualKeys.retrieve(virtualKeyId));
      await check('virtualKeys.update', () => client.virtualKeys.update(virtualKeyId, { name: `${scratch}-renamed` }));
    } finally {
      await check('virtualKeys.delete', () => client.virtualKeys.delete(virtualKeyId));
    }
  }

  const apiKey = await check('apiKeys.create', () => client.apiKeys.create({ name: scratch, scope: 'inference', ...workspace }));
  const apiKeyId = (apiKey as { id?: string } | null)?.id;
  if (apiKeyId !== undefined) {
    try {
      await check('apiKeys.retrieve', () => client.apiKeys.retrieve(apiKeyId));
    } finally {
      await check('apiKeys.revoke', () => client.apiKeys.revoke(apiKeyId));
    }
  }

  const rateLimits = await check('policies.rateLimits.create', () => client.policies.rateLimits.create({ type: 'requests', unit: 'rpm', value: 1000, name: scratch, ...workspace }));
  const rateLimitsId = (rateLimits as { id?: string } | null)?.id;
  if (rateLimitsId !== undefined) {
    try {
      await check('policies.rateLimits.retrieve', () => client.policies.rateLimits.retrieve(rateLimitsId));
      await check('policies.rateLimits.usage', () => client.policies.rateLimits.usage(rateLimitsId));
      await check('policies.rateLimits.update', () => client.policies.rateLimits.update(rateLimitsId, { value: 2000 }));
      await check('policies.rateLimits.archive', () => client.policies.rateLimits.archive(rateLimitsId));
    } finally {
      await check('policies.rateLimits.delete', () => client.policies.rateLimits.delete(rateLimitsId));
    }
  }

  const usageLimits = await check('policies.usageLimits.create', () => client.policies.usageLimits.create({ conditions: [{ key: 'metadata.team', value: scratch }], group_by: [{ key: 'api_key' }], type: 'cost', credit_limit: 1, name: scratch, ...workspace }));
  const usageLimitsId = (usageLimits as { id?: string } | null)?.id;
  if (usageLimitsId !== undefined) {
    try {
      await check('policies.usageLimits.retrieve', () => client.policies.usageLimits.retrieve(usageLimitsId));
      await check('policies.usageLimits.usage', () => client.policies.usageLimits.usage(usageLimitsId));
      await check('policies.usageLimits.update', () => client.policies.usageLimits.update(usageLimitsId, { name: `${scratch}-renamed` }));
    } finally {
      await check('policies.usageLimits.delete', () => client.policies.usageLimits.delete(usageLimitsId));
    }
  }

  await check('cache.purge', () => client.cache.purge({ namespace: scratch }));
}

/** The check's result, the answer when there was one, and the error answer when the gateway refused. */
interface Outcome<T> {
  result: CheckResult;
  value: T | null;
  refused?: GatewayError;
}

async function outcomeOf<T>(operation: string, call: () => PromiseLike<T>, expect: { status?: number }): Promise<Outcome<T>> {
  try {
    const value = await call();
    if (expect.status !== undefined) return { result: { operation, outcome: 'violation', detail: `expected ${expect.status}, got a success answer` }, value: null };
    return { result: { operation, outcome: 'ok', detail: '' }, value };
  } catch (error) {
    if (error instanceof ContractError) {
      const where = error.errors.slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim()).join('; ');
      return { result: { operation, outcome: 'violation', detail: where }, value: null };
    }
    if (error instanceof GatewayError) {
      // The error body has a schema too (resources/error.json).
      if (!validateError(error.body)) {
        const first = validateError.errors?.[0];
        return { result: { operation, outcome: 'violation', detail: `${error.status} error body: ${first?.instancePath || '/'} ${first?.message ?? ''}`.trim() }, value: null };
      }
      if (expect.status === error.status) return { result: { operation, outcome: 'ok', detail: `${error.status} ${error.code ?? ''}`.trim() }, value: null };
      return { result: { operation, outcome: 'error', detail: `${error.status} ${error.code ?? ''}: ${error.message}` }, value: null, refused: error };
    }
    return { result: { operation, outcome: 'error', detail: (error as Error).message }, value: null };
  }
}
