// For every operation of schema/api.json that has a client binding, the generated client has that
// method, and (1) it sends the operation's HTTP method to its path, any path-parameter value encoded
// into its segment (a property over generated values), and (2) its parameter and answer types are
// exactly the schemas' types: a usage file stating them is compiled with the TypeScript checker.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { ModuleKind, ModuleResolutionKind, Project, ScriptTarget } from 'ts-morph';
import apiManifest from '../../schema/api.json' with { type: 'json' };
import { GatewayClient } from '../../generated/client/client.ts';

const ROOT = resolve(import.meta.dirname, '../..');

interface Bound {
  operationId: string;
  method: string;
  path: string;
  requestBody?: string;
  query?: string;
  responses: Record<string, string | null>;
  client: { method: string; body?: 'json' | 'multipart'; returns?: 'json' | 'text' | 'bytes' };
}

const BOUND = (apiManifest.endpoints as unknown as Bound[]).filter((e) => e.client !== undefined);
const titleOf = (ref: string): string => (JSON.parse(readFileSync(join(ROOT, 'schema', ref), 'utf8')) as { title: string }).title;
const paramsOf = (path: string): string[] => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

/** The method on a client, by its dotted name. */
function methodOf(client: GatewayClient, dotted: string): (...args: unknown[]) => PromiseLike<unknown> {
  const parts = dotted.split('.');
  let target: Record<string, unknown> = client as unknown as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) target = target[part] as Record<string, unknown>;
  const method = target[parts[parts.length - 1]];
  if (typeof method !== 'function') throw new Error(`the client has no ${dotted}`);
  return (method as (...args: unknown[]) => PromiseLike<unknown>).bind(target);
}

describe('client operations', () => {
  test.prop([fc.string({ minLength: 1, maxLength: 12 })], { numRuns: 25 })('each sends its method to its path, path values encoded', async (value) => {
    for (const op of BOUND) {
      let sent: { method: string; url: URL } | undefined;
      const fetch: typeof globalThis.fetch = async (input, init) => {
        sent = { method: init?.method ?? 'GET', url: new URL(String(input)) };
        const body = op.client.returns === 'text' ? 'text' : op.client.returns === 'bytes' ? new Uint8Array([1]) : JSON.stringify({ object: 'list', data: [] });
        return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
      };
      const client = new GatewayClient({ baseURL: 'http://gateway.test', apiKey: 'k', fetch });
      const args: unknown[] = paramsOf(op.path).map(() => value);
      if (op.client.body === 'multipart') args.push(new FormData());
      else if (op.requestBody !== undefined || op.client.body === 'json') args.push({});
      await methodOf(client, op.client.method)(...args);
      expect(sent?.method, op.operationId).toBe(op.method);
      const expected = op.path.replace(/\{[^}]+\}/g, encodeURIComponent(value));
      expect(sent?.url.pathname, op.operationId).toBe(new URL(`http://gateway.test${expected}`).pathname);
    }
  });

  it('types each method exactly as the schemas say (checked by the TypeScript compiler)', () => {
    const types = new Set<string>();
    const lines: string[] = [];
    BOUND.forEach((op, index) => {
      const params = paramsOf(op.path).map((name) => `${name}: string`);
      if (op.client.body === 'multipart') params.push('form: FormData');
      else if (op.requestBody !== undefined) {
        types.add(titleOf(op.requestBody));
        params.push(`body: ${titleOf(op.requestBody)}`);
      } else if (op.client.body === 'json') params.push('body: Record<string, unknown>');
      const query = op.query === undefined ? null : (JSON.parse(readFileSync(join(ROOT, 'schema', op.query), 'utf8')) as { properties?: Record<string, unknown> }).properties ?? {};
      // A query schema that allows no parameter is no argument.
      if (op.query !== undefined && Object.keys(query!).length > 0) {
        types.add(titleOf(op.query));
        params.push(`query?: ${titleOf(op.query)}`);
      }
      params.push('options?: CallOptions');
      const returns = op.client.returns ?? 'json';
      const answer = returns === 'text' ? 'string' : returns === 'bytes' ? 'Uint8Array' : titleOf(op.responses['200']!);
      if (returns === 'json') types.add(answer);
      const paged = query !== null && ('after' in query || 'current_page' in query);
      const result = paged ? `ListCall<${answer}>` : `Promise<${answer}>`;
      lines.push(`const parameters${index}: Equal<Parameters<typeof client.${op.client.method}>, [${params.join(', ')}]> = true;`);
      lines.push(`const result${index}: Equal<ReturnType<typeof client.${op.client.method}>, ${result}> = true;`);
    });
    const usage = [
      "import { GatewayClient, type CallOptions, type ListCall } from './client.ts';",
      `import type { ${[...types].sort().join(', ')} } from './types.ts';`,
      'type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;',
      "const client = new GatewayClient({ baseURL: 'http://gateway.test' });",
      ...lines,
      '',
    ].join('\n');
    const project = new Project({
      compilerOptions: {
        strict: true, noEmit: true, target: ScriptTarget.ES2022, module: ModuleKind.NodeNext, moduleResolution: ModuleResolutionKind.NodeNext,
        allowImportingTsExtensions: true, skipLibCheck: true, lib: ['lib.es2024.d.ts', 'lib.dom.d.ts'], types: [], noUnusedLocals: false,
      },
      skipAddingFilesFromTsConfig: true,
    });
    const file = project.createSourceFile(join(ROOT, 'generated/client/__usage__.ts'), usage);
    const diagnostics = project.getPreEmitDiagnostics().filter((d) => d.getSourceFile()?.getFilePath() === file.getFilePath());
    expect(diagnostics.map((d) => `${d.getLineNumber()}: ${d.getMessageText().toString().slice(0, 300)}\n  ${usage.split('\n')[d.getLineNumber()! - 1]}`)).toEqual([]);
    expect(lines).toHaveLength(BOUND.length * 2);
  }, 60_000);
});
