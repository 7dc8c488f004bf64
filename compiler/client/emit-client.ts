// Emits generated/client/client.ts as a syntax tree (ts-morph): the GatewayClient class with one
// group class per API area and one method per operation, the operation table the transport reads,
// the gateway's header names and error codes, and the gatewayHeaders() helper for vendor SDKs.
import { IndentationText, Project, QuoteKind, VariableDeclarationKind, type ClassDeclarationStructure, type MethodDeclarationStructure, type OptionalKind, type ParameterDeclarationStructure, StructureKind } from 'ts-morph';
import * as HEADER_NAMES from '../config/gateway-header-names.ts';
import { GATEWAY_ERRORS } from '../config/gateway-errors.ts';
import { GENERATED_HEADER } from '../schemas/artifact.ts';
import type { ClientOperation } from './operations.ts';

/** HeaderNames (template/http.ts) → the gateway's header constant it takes its value from. */
const HEADERS: Record<string, string> = {
  apiKey: HEADER_NAMES.API_KEY_HEADER,
  traceId: HEADER_NAMES.TRACE_ID_HEADER,
  virtualKey: HEADER_NAMES.VIRTUAL_KEY_HEADER,
  config: HEADER_NAMES.CONFIG_HEADER,
  metadata: HEADER_NAMES.METADATA_HEADER,
  cacheForceRefresh: HEADER_NAMES.CACHE_FORCE_REFRESH_HEADER,
  cacheNamespace: HEADER_NAMES.CACHE_NAMESPACE_HEADER,
  requestTimeout: HEADER_NAMES.REQUEST_TIMEOUT_HEADER,
  forwardHeaders: HEADER_NAMES.FORWARD_HEADERS_HEADER,
};

interface Group {
  path: string[];
  groups: Map<string, Group>;
  operations: ClientOperation[];
}

export function emitClient(operations: readonly ClientOperation[]): string {
  const project = new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: { quoteKind: QuoteKind.Single, indentationText: IndentationText.TwoSpaces },
  });
  const file = project.createSourceFile('client.ts');
  const types = [...new Set(operations.flatMap((op) => op.schemaTypes))].sort();
  const validators = [...new Set(operations.map((op) => op.validator).filter((v): v is string => v !== null))].sort();

  file.addImportDeclaration({ moduleSpecifier: './http.ts', namedImports: ['GatewayError', 'headersFor', 'ListCall', 'Transport'] });
  file.addImportDeclaration({ moduleSpecifier: './http.ts', isTypeOnly: true, namedImports: ['CallOptions', 'ClientOptions', 'GatewayHeaderOptions', 'HeaderNames', 'Operation'] });
  file.addImportDeclaration({ moduleSpecifier: './types.ts', isTypeOnly: true, namedImports: types });
  file.addImportDeclaration({ moduleSpecifier: './validators.js', namedImports: validators });
  file.addExportDeclaration({ moduleSpecifier: './http.ts', namedExports: ['ClientTimeoutError', 'ContractError', 'GatewayError', 'ListCall'] });
  file.addExportDeclaration({ moduleSpecifier: './http.ts', isTypeOnly: true, namedExports: ['CallOptions', 'ClientOptions', 'GatewayHeaderOptions'] });
  file.addExportDeclaration({ moduleSpecifier: './types.ts', isTypeOnly: true });

  file.addTypeAlias({
    name: 'GatewayErrorCode',
    isExported: true,
    docs: ['Every code in the gateway\'s error table (docs/errors.md); a provider\'s own error passed through may carry others.'],
    type: Object.keys(GATEWAY_ERRORS).map((code) => `'${code}'`).join(' | '),
  });
  file.addFunction({
    name: 'isGatewayError',
    isExported: true,
    docs: ['True when `error` is an error answer of the gateway, with the given code when one is named.'],
    parameters: [{ name: 'error', type: 'unknown' }, { name: 'code', type: 'GatewayErrorCode', hasQuestionToken: true }],
    returnType: 'error is GatewayError<GatewayErrorCode>',
    statements: 'return error instanceof GatewayError && (code === undefined || error.code === code);',
  });
  file.addVariableStatement({
    declarationKind: VariableDeclarationKind.Const,
    declarations: [{
      name: 'HEADERS',
      type: 'HeaderNames',
      initializer: (writer) => writer.block(() => {
        for (const [key, value] of Object.entries(HEADERS)) writer.writeLine(`${key}: '${value}',`);
      }),
    }],
  });
  file.addFunction({
    name: 'gatewayHeaders',
    isExported: true,
    docs: ['The x-gateway-* headers for a vendor SDK pointed at the gateway (its `defaultHeaders`): inference calls stay with the vendor SDKs.'],
    parameters: [{ name: 'options', type: 'GatewayHeaderOptions' }],
    returnType: 'Record<string, string>',
    statements: 'return headersFor(HEADERS, options);',
  });
  file.addVariableStatement({
    declarationKind: VariableDeclarationKind.Const,
    declarations: [{
      name: 'OPERATIONS',
      initializer: (writer) => writer.write('{').newLine().indent(() => {
        for (const op of operations) {
          writer.writeLine(`${op.operationId}: { id: '${op.operationId}', method: '${op.method}', path: '${op.path}', returns: '${op.returns}', validate: ${op.validator ?? 'null'}, paging: ${op.paging === null ? 'null' : `'${op.paging}'`} },`);
        }
      }).write('} satisfies Record<string, Operation>'),
    }],
    leadingTrivia: '/** Every operation the client calls, from schema/api.json. */\n',
  });

  const root = groupTree(operations);
  const classes: OptionalKind<ClassDeclarationStructure>[] = [];
  collectClasses(root, classes);
  file.addClasses(classes);

  file.insertText(0, `${GENERATED_HEADER}\n// The gateway's control-plane client: one method per operation of schema/api.json that has a client binding.\n`);
  file.formatText({ indentSize: 2, convertTabsToSpaces: true });
  return file.getFullText();
}

function groupTree(operations: readonly ClientOperation[]): Group {
  const root: Group = { path: [], groups: new Map(), operations: [] };
  for (const op of operations) {
    let group = root;
    for (const name of op.groups) {
      let child = group.groups.get(name);
      if (child === undefined) {
        child = { path: [...group.path, name], groups: new Map(), operations: [] };
        group.groups.set(name, child);
      }
      group = child;
    }
    group.operations.push(op);
  }
  return root;
}

function className(group: Group): string {
  return group.path.length === 0 ? 'GatewayClient' : `${group.path.map((p) => p[0].toUpperCase() + p.slice(1)).join('')}Api`;
}

/** The root becomes GatewayClient (built from options); every other group takes the shared transport. */
function collectClasses(group: Group, out: OptionalKind<ClassDeclarationStructure>[]): void {
  const isRoot = group.path.length === 0;
  const children = [...group.groups.values()];
  out.push({
    kind: StructureKind.Class,
    name: className(group),
    isExported: true,
    docs: isRoot ? ['The gateway API: `new GatewayClient({ baseURL, apiKey })`, then `client.configs.create(…)`, `client.logs.list({ trace_id })` …'] : [`The ${group.path.join('.')} operations.`],
    properties: [
      { name: '#transport', type: 'Transport', isReadonly: true },
      ...children.map((child) => ({ name: child.path[child.path.length - 1], type: className(child), isReadonly: true })),
    ],
    ctors: [{
      parameters: [isRoot ? { name: 'options', type: 'ClientOptions' } : { name: 'transport', type: 'Transport' }],
      statements: [
        isRoot ? 'this.#transport = new Transport(options, HEADERS);' : 'this.#transport = transport;',
        ...children.map((child) => `this.${child.path[child.path.length - 1]} = new ${className(child)}(this.#transport);`),
      ],
    }],
    methods: group.operations.map(methodOf),
  });
  for (const child of children) collectClasses(child, out);
}

function methodOf(op: ClientOperation): OptionalKind<MethodDeclarationStructure> {
  const parameters: OptionalKind<ParameterDeclarationStructure>[] = op.pathParams.map((name) => ({ name, type: 'string' }));
  const request: string[] = [];
  if (op.pathParams.length > 0) request.push(`path: { ${op.pathParams.join(', ')} }`);
  if (op.bodyKind === 'json') {
    parameters.push({ name: 'body', type: op.body! });
    request.push('body');
  } else if (op.bodyKind === 'multipart') {
    parameters.push({ name: 'form', type: 'FormData' });
    request.push('form');
  }
  if (op.query !== null) {
    parameters.push({ name: 'query', type: op.query, hasQuestionToken: true });
    request.push('query');
  }
  parameters.push({ name: 'options', type: 'CallOptions', hasQuestionToken: true });
  const call = op.paging === null ? 'call' : 'list';
  return {
    name: op.name,
    docs: [`${op.summary}\n\n\`${op.method} ${op.path}\`${op.paging === null ? '' : ' — await it for the first page, or iterate it (`for await`) for every page.'}`],
    parameters,
    returnType: op.paging === null ? `Promise<${op.answer}>` : `ListCall<${op.answer}>`,
    statements: `return this.#transport.${call}<${op.answer}>(OPERATIONS.${op.operationId}, { ${request.join(', ')} }, options);`,
  };
}
