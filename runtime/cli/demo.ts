// `gateway demo`: the quick start in one command. The mock provider (gateway mock-provider) runs in
// this process on the address examples/configs/mock.json sends requests to, and the gateway serves
// examples/configs beside it, seeded with an admin key, so `npm ci && npm run demo` and one curl
// make a routed request with no provider account and no network. Both stop on SIGINT or SIGTERM.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildInfo } from '../../compiler/config/embedded-files.ts';
import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, parsePort, reportUsageError, UsageError } from './args.ts';
import { startMockProvider } from './mock-provider.ts';
import { runServe } from './serve.ts';

const DEFAULT_CONFIGS = 'examples/configs';
/** The address examples/configs/mock.json names. */
const DEFAULT_MOCK_PORT = 9000;
const DEFAULT_PORT = 8787;
/** The admin key the gateway is seeded with unless GATEWAY_API_KEY names one. */
export const DEMO_API_KEY = 'dev-key';

export const DEMO_USAGE = `Usage: gateway demo [--port N] [--mock-port N] [--configs DIR] [--data DIR]

The quick start in one command: runs the mock provider (gateway mock-provider) on
127.0.0.1:${DEFAULT_MOCK_PORT}, where examples/configs/mock.json sends requests, and the gateway serving
examples/configs, with the admin key "${DEMO_API_KEY}" (GATEWAY_API_KEY when set). Prints the mock's URL,
a request to try, and the gateway's URL once it listens; SIGINT or SIGTERM stop both. Every variable
gateway serve reads applies.

Options:
  --port N       the gateway's port (default ${DEFAULT_PORT}; 0 picks a free port)
  --mock-port N  the mock provider's port (default ${DEFAULT_MOCK_PORT}; the example configs name ${DEFAULT_MOCK_PORT}, so
                 on another port only configs that name it reach the mock)
  --configs DIR  folder of saved configs (default ${DEFAULT_CONFIGS}; a one-file build without
                 that folder beside it serves the configs it carries)
  --data DIR     data directory holding the embedded store (default ./data, as gateway serve)
  -h, --help     show this help`;

const OPTIONS = {
  port: { type: 'string' },
  'mock-port': { type: 'string' },
  configs: { type: 'string' },
  data: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function runDemo(argv: string[]): Promise<number> {
  let port: number;
  let mockPort: number;
  let configs: string | undefined;
  let data: string | undefined;
  try {
    const { values } = parseCommandArgs(argv, OPTIONS);
    if (values.help === true) {
      process.stdout.write(`${DEMO_USAGE}\n`);
      return EXIT_OK;
    }
    port = parsePort(values.port, DEFAULT_PORT);
    mockPort = parsePort(values['mock-port'], DEFAULT_MOCK_PORT);
    configs = values.configs;
    data = values.data;
  } catch (err) {
    if (err instanceof UsageError) return reportUsageError('demo', err, DEMO_USAGE);
    throw err;
  }
  // A one-file build (gateway build) carries its configs: served, as serve does, when no folder is
  // named and the examples are not beside it.
  const embedded = configs === undefined && !existsSync(DEFAULT_CONFIGS) && (buildInfo()?.configs.length ?? 0) > 0;
  if (!embedded) configs ??= DEFAULT_CONFIGS;
  if (configs !== undefined && !existsSync(configs)) {
    process.stderr.write(`gateway demo: no configs folder at ${configs}: run it from the repository's root, or give --configs DIR\n`);
    return EXIT_FAILURE;
  }

  const mock = startMockProvider({ failEvery: 0, failStatus: 503, latencyMs: 0 });
  try {
    await new Promise<void>((resolve, reject) => {
      mock.once('error', reject);
      mock.listen(mockPort, '127.0.0.1', resolve);
    });
  } catch (err) {
    const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
    process.stderr.write(`gateway demo: the mock provider cannot listen on 127.0.0.1:${mockPort}: ${inUse ? 'the port is in use (stop what holds it, or give --mock-port N)' : (err as Error).message}\n`);
    return EXIT_FAILURE;
  }
  // The mock shares this process's event loop with the gateway: its connections must not hold the exit.
  mock.unref();
  const mockUrl = `http://127.0.0.1:${(mock.address() as AddressInfo).port}/v1`;
  // A key of the user's own is a secret: the request shown names the variable instead of printing it.
  const ownKey = Boolean(process.env.GATEWAY_API_KEY);
  process.env.GATEWAY_API_KEY ||= DEMO_API_KEY;
  const keyHeader = ownKey ? '"x-gateway-api-key: $GATEWAY_API_KEY"' : `'x-gateway-api-key: ${DEMO_API_KEY}'`;
  const gateway = `http://127.0.0.1:${port === 0 ? '<port>' : port}`;
  // The request shown goes through a config named mock: the examples' (or a build's), pointing at this mock.
  const mockConfig = configs === undefined ? 'the config "mock" this build carries' : existsSync(join(configs, 'mock.json')) ? join(configs, 'mock.json') : null;
  process.stdout.write(
    `mock provider listening on ${mockUrl}\n` +
      (mockConfig === null
        ? `demo: ${configs} has no mock.json; name one of its configs in x-gateway-config, or add one: {"provider": "vendor", "custom_host": "${mockUrl}"}. Such a request:\n\n`
        : `demo: once the gateway is listening, route a request through ${mockConfig}:\n\n`) +
      `  curl ${gateway}/v1/chat/completions -H ${keyHeader} -H 'x-gateway-config: mock' \\\n` +
      `    -H 'Authorization: Bearer any-key' -H 'content-type: application/json' \\\n` +
      `    -d '{"model":"mock-chat","messages":[{"role":"user","content":"Hello"}]}'\n\n` +
      `  and see it logged: curl '${gateway}/v1/logs?limit=1' -H ${keyHeader}\n\n`,
  );
  try {
    return await runServe([...(configs === undefined ? [] : ['--configs', configs]), '--port', String(port), ...(data === undefined ? [] : ['--data', data])]);
  } finally {
    mock.closeAllConnections();
    mock.close();
  }
}
