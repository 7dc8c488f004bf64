// Route matching against the generated route table. Patterns are compiled once, per method, so a
// request costs one array walk over its own method's routes; the 405 check runs only on a miss, or
// when the match is a parameterised route while a literal route owns the path: `GET
// /v1/chat/completions` is 405 (Allow: POST), not a pass-through to the provider.

export interface RouteSpec {
  operationId: string;
  method: string;
  path: string;
  auth: 'none' | 'api_key';
  plane: 'data' | 'control';
  handler: string;
  /** `always`: checked before the handler runs; `when-read`: checked when the handler calls ctx.json(). */
  validateBody: 'always' | 'when-read' | 'never';
  bodyValidator?: string;
  queryValidator?: string;
  /** The endpoint reads no request body: one is refused (400 invalid_request_body), not dropped. */
  noBody?: boolean;
  /** Anchored RegExp source with named groups, matched against the path without its query string. */
  pattern: string;
  params?: readonly string[];
}

export type RouteParams = Record<string, string>;

export type RouteMatch =
  | { kind: 'found'; route: RouteSpec; params: RouteParams }
  | { kind: 'method_not_allowed'; allow: string[] }
  | { kind: 'not_found' };

interface CompiledRoute {
  route: RouteSpec;
  regex: RegExp;
}

/** A route without parameters: its path is a literal, and it owns that path for every method. */
function isLiteral(route: RouteSpec): boolean {
  return !route.path.includes('{');
}

const NO_PARAMS: RouteParams = Object.freeze({}) as RouteParams;
const NOT_FOUND: RouteMatch = Object.freeze({ kind: 'not_found' });

export class RouteTable {
  readonly routes: readonly RouteSpec[];
  private readonly byMethod = new Map<string, CompiledRoute[]>();
  private readonly all: CompiledRoute[] = [];
  /** Literal paths → the methods routed on them. */
  private readonly literal = new Map<string, string[]>();

  constructor(routes: readonly RouteSpec[]) {
    this.routes = routes;
    for (const route of routes) {
      let regex: RegExp;
      try {
        regex = new RegExp(route.pattern);
      } catch (err) {
        throw new Error(`route ${route.operationId}: invalid pattern ${JSON.stringify(route.pattern)}: ${(err as Error).message}`);
      }
      const compiled = { route, regex };
      const method = route.method.toUpperCase();
      let list = this.byMethod.get(method);
      if (list === undefined) this.byMethod.set(method, (list = []));
      list.push(compiled);
      this.all.push(compiled);
      if (isLiteral(route)) this.literal.set(route.path, [...(this.literal.get(route.path) ?? []), method]);
    }
  }

  match(method: string, path: string): RouteMatch {
    // HEAD is GET without the body (RFC 9110 §9.3.2): node:http leaves the body out of the answer.
    const routed = method === 'HEAD' && !this.byMethod.has('HEAD') ? 'GET' : method;
    const candidates = this.byMethod.get(routed);
    if (candidates !== undefined) {
      for (const { route, regex } of candidates) {
        const m = regex.exec(path);
        if (m === null) continue;
        // A parameterised route never takes a literal route's path for a method that path does not list.
        if (!isLiteral(route)) {
          const owner = this.literal.get(path);
          if (owner !== undefined && !owner.includes(routed)) return notAllowed(owner);
        }
        return { kind: 'found', route, params: paramsOf(m) };
      }
    }
    // A literal path answers with its own methods, whatever else its pattern would match.
    const owner = this.literal.get(path);
    if (owner !== undefined) return notAllowed(owner);
    let allow: string[] | null = null;
    for (const { route, regex } of this.all) {
      if (!regex.test(path)) continue;
      const other = route.method.toUpperCase();
      if (allow === null) allow = [other];
      else if (!allow.includes(other)) allow.push(other);
    }
    return allow === null ? NOT_FOUND : notAllowed(allow);
  }
}

/** The 405 of a path routed for `methods`: HEAD is allowed wherever GET is. */
function notAllowed(methods: readonly string[]): RouteMatch {
  const allow = [...methods];
  const get = allow.indexOf('GET');
  if (get !== -1 && !allow.includes('HEAD')) allow.splice(get + 1, 0, 'HEAD');
  return { kind: 'method_not_allowed', allow };
}

function paramsOf(m: RegExpExecArray): RouteParams {
  const groups = m.groups;
  if (groups === undefined) return NO_PARAMS;
  const params: RouteParams = {};
  for (const name in groups) {
    const value = groups[name];
    if (value !== undefined) params[name] = value;
  }
  return params;
}
