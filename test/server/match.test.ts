// The route matcher over the generated route table: every route is reachable with its parameters,
// unknown paths are 404 and known paths with other methods are 405.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../generated/routes.ts';
import { RouteTable } from '../../runtime/server/match.ts';
import { route } from './helpers.ts';

const table = new RouteTable(ROUTES);
const segment = fc.stringMatching(/^[A-Za-z0-9._~%-]{1,24}$/);

describe('RouteTable over generated/routes.ts', () => {
  it('finds each specific route by method and path', () => {
    expect(table.match('GET', '/v1/health')).toMatchObject({ kind: 'found', route: { operationId: 'getHealth' } });
    expect(table.match('POST', '/v1/chat/completions')).toMatchObject({ kind: 'found', route: { handler: 'inference.chat' } });
    expect(table.match('POST', '/v1/batches/b1/cancel')).toMatchObject({ kind: 'found', route: { handler: 'batches.cancel' }, params: { batch_id: 'b1' } });
  });

  test.prop([fc.constantFrom(...ROUTES.filter((r) => !r.path.includes('{path}'))), fc.array(segment, { minLength: 4, maxLength: 4 })], { numRuns: 100 })(
    'matches every specific route with the parameters put into its template',
    (spec, values) => {
      const names = [...spec.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      let i = 0;
      const path = spec.path.replace(/\{[^}]+\}/g, () => values[i++]);
      const found = table.match(spec.method, path);
      expect(found).toMatchObject({ kind: 'found', route: { operationId: spec.operationId } });
      if (found.kind === 'found') expect(found.params).toEqual(Object.fromEntries(names.map((name, j) => [name, values[j]])));
    },
  );

  test.prop([fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), fc.array(segment, { minLength: 1, maxLength: 5 })], { numRuns: 100 })(
    'sends any other /v1 path to the pass-through with the rest of the path',
    (method, segments) => {
      const path = `/v1/${segments.join('/')}`;
      const found = table.match(method, path);
      expect(found.kind).toBe('found');
      if (found.kind === 'found' && found.route.handler === 'inference.passthrough') expect(found.params).toEqual({ path: segments.join('/') });
    },
  );

  it('answers 405 with the allowed methods, and 404 off the table', () => {
    // A literal path's own methods, not the pass-through's.
    expect(table.match('PATCH', '/v1/chat/completions')).toEqual({ kind: 'method_not_allowed', allow: ['POST'] });
    expect(table.match('PATCH', '/v1/assistants')).toEqual({ kind: 'method_not_allowed', allow: ['POST', 'GET', 'HEAD', 'PUT', 'DELETE'] });
    expect(table.match('GET', '/v2/models')).toEqual({ kind: 'not_found' });
    expect(table.match('GET', '/v1/')).toEqual({ kind: 'not_found' });
    expect(table.match('GET', '/')).toEqual({ kind: 'not_found' });
  });
});

describe('literal paths own their methods', () => {
  test.prop([fc.constantFrom(...ROUTES.filter((r) => !r.path.includes('{'))), fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS')], { numRuns: 150 })('a literal route\'s path with a method it does not list is 405 with its own methods (HEAD where GET), never the pass-through', (literal, method) => {
    const owners = ROUTES.filter((r) => r.path === literal.path).map((r) => r.method.toUpperCase());
    const withHead = owners.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
    const match = table.match(method, literal.path);
    if (withHead.includes(method)) expect(match).toMatchObject({ kind: 'found', route: { path: literal.path, method: method === 'HEAD' ? 'GET' : method } });
    else expect(match).toEqual({ kind: 'method_not_allowed', allow: withHead });
  });

  it('leaves other paths to the pass-through', () => {
    expect(table.match('GET', '/v1/chat/completions')).toEqual({ kind: 'method_not_allowed', allow: ['POST'] });
    expect(table.match('GET', '/v1/assistants')).toMatchObject({ kind: 'found', route: { handler: 'inference.passthrough' } });
  });
});

describe('RouteTable on a hand-made table', () => {
  const small = new RouteTable([
    route({ operationId: 'a', method: 'GET', path: '/v1/items/{id}', handler: 'a', pattern: '^/v1/items/(?<id>[^/]+)$' }),
    route({ operationId: 'b', method: 'post', path: '/v1/items', handler: 'b', pattern: '^/v1/items$' }),
    route({ operationId: 'c', method: 'GET', path: '/v1/opt', handler: 'c', pattern: '^/v1/opt(?:/(?<tail>.+))?$' }),
  ]);

  it('keeps method names case-insensitive in the table and leaves unmatched optional groups out', () => {
    expect(small.match('POST', '/v1/items')).toMatchObject({ kind: 'found', route: { operationId: 'b' }, params: {} });
    expect(small.match('GET', '/v1/items')).toEqual({ kind: 'method_not_allowed', allow: ['POST'] });
    expect(small.match('GET', '/v1/opt')).toMatchObject({ kind: 'found', params: {} });
    expect(small.match('GET', '/v1/opt/x/y')).toMatchObject({ kind: 'found', params: { tail: 'x/y' } });
    expect(small.match('GET', '/v1/items/a/b')).toEqual({ kind: 'not_found' });
  });

  it('names the route whose pattern does not compile', () => {
    expect(() => new RouteTable([route({ operationId: 'broken', method: 'GET', path: '/x', handler: 'x', pattern: '^(/x$' })])).toThrow(/broken/);
  });
});
