// `gateway simulate CONFIG --request FILE`: a dry run of one request through the config's compiled
// router with scripted provider outcomes (runtime/simulate). No provider is called.
import { readFile } from 'node:fs/promises';
import { checkConfigFile, formatConfigError, UnreadableConfigFile } from '../../compiler/config/config-file.ts';
import { GatewayError } from '../core/errors.ts';
import { parseJson } from '../../compiler/config/json-parse.ts';
import { METADATA_HEADER } from '../core/gateway-headers.ts';
import { inferenceSettingsFromEnv } from '../inference/settings.ts';
import { InferenceTransport } from '../inference/transport.ts';
import { defaultProviders } from '../providers/registry.ts';
import { parseOutcomeFlag, resolveTargets } from '../simulate/outcome-script.ts';
import { reportText } from '../simulate/report-text.ts';
import { DEFAULT_SEED, DEFAULT_SIMULATED_PATH, metadataHeader, SIMULATED_PATHS, simulate } from '../simulate/simulate.ts';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, parseCommandArgs, reportUsageError, UsageError } from './args.ts';
import { jsonErrorDetail } from '../../compiler/config/json-syntax-error.ts';
import { withoutByteOrderMark } from '../../compiler/config/json-locate.ts';

export const SIMULATE_USAGE = `Usage: gateway simulate CONFIG --request FILE [--fail TARGET=OUTCOME[,OUTCOME…]]… [options]

A dry run: sends the request in FILE through the compiled router of the config file CONFIG, with
each provider's answer replaced by the outcomes you script, and prints every try in order (target,
provider, model after override_params, what it answered, whether the router retried, after which
backoff, or fell back), the answer, and the gateway headers the client would see. No provider is
called and no credential is used. A target given no outcome answers 200.

Options:
  --request FILE        the JSON body a client would send (- reads standard input)
  --path PATH           the endpoint (default ${DEFAULT_SIMULATED_PATH}; also ${SIMULATED_PATHS.filter((p) => p !== DEFAULT_SIMULATED_PATH).join(', ')})
  --metadata JSON       x-gateway-metadata, e.g. '{"tier":"pro"}'
  --header 'NAME: VALUE' another request header (x-gateway-provider, x-gateway-request-timeout, …); repeatable
  --fail TARGET=OUTCOMES the answers of one target's tries in order, the last repeating; repeatable.
                        TARGET is a path (config.targets[0]) or a target's unique name. An outcome is a
                        status (503), a status with retry-after seconds (429:2), timeout or unreachable
  --open TARGET         the target's circuit is open when the request starts; repeatable
  --seed N              loadbalance picks and backoff jitter (default ${DEFAULT_SEED}: the same run every time)
  --guardrails DIR      folder of named guardrails (default: guardrails/ beside the config's folder)
  --json                print the report as JSON
  -h, --help            show this help

Exit status: 0 when the simulation ran (whatever it answered), 1 when the config is invalid, 2 on
usage errors (an unknown target, a bad outcome, an unreadable file).`;

const OPTIONS = {
  request: { type: 'string' },
  path: { type: 'string' },
  metadata: { type: 'string' },
  header: { type: 'string', multiple: true },
  fail: { type: 'string', multiple: true },
  open: { type: 'string', multiple: true },
  seed: { type: 'string' },
  guardrails: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function runSimulate(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parseCommandArgs(argv, OPTIONS, true);
    if (values.help === true) {
      process.stdout.write(`${SIMULATE_USAGE}\n`);
      return EXIT_OK;
    }
    if (positionals.length !== 1) throw new UsageError('name one config file');
    if (values.request === undefined) throw new UsageError('--request FILE is required');
    const body = parsedJson(await readRequest(values.request), `--request ${values.request}`);
    let checked;
    try {
      checked = await checkConfigFile(positionals[0], values.guardrails);
    } catch (error) {
      if (error instanceof UnreadableConfigFile) throw new UsageError(error.message);
      throw error;
    }
    if (!checked.ok) {
      for (const error of checked.errors) process.stderr.write(formatConfigError(positionals[0], error));
      return EXIT_FAILURE;
    }
    const plan = checked.plan;
    const report = await simulate(
      plan,
      {
        path: values.path ?? DEFAULT_SIMULATED_PATH,
        body,
        headers: { ...headersOf(values.header ?? []), ...(values.metadata === undefined ? {} : metadataHeader(metadataOf(values.metadata))) },
        outcomes: resolveTargets(plan, (values.fail ?? []).map((flag) => { const { target, outcomes } = parseOutcomeFlag(flag); return [target, outcomes] as const; }), 'fail'),
        openCircuits: values.open ?? [],
        seed: seedOf(values.seed),
      },
      { transport: new InferenceTransport(defaultProviders()), settings: inferenceSettingsFromEnv() },
    );
    process.stdout.write(values.json === true ? `${JSON.stringify(report, null, 2)}\n` : reportText(report));
    return EXIT_OK;
  } catch (error) {
    if (error instanceof UsageError) return reportUsageError('simulate', error, SIMULATE_USAGE);
    if (error instanceof GatewayError) {
      process.stderr.write(`gateway simulate: ${error.param === null ? '' : `--${optionOf(error.param)}: `}${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

async function readRequest(file: string): Promise<string> {
  try {
    if (file === '-') {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return withoutByteOrderMark(Buffer.concat(chunks).toString('utf8'));
    }
    return withoutByteOrderMark(await readFile(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read --request ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function parsedJson(text: string, what: string): unknown {
  try {
    return parseJson(text);
  } catch {
    throw new UsageError(`${what} is not JSON${jsonErrorDetail(text)}`);
  }
}

function metadataOf(text: string): Record<string, string> {
  const value = parsedJson(text, '--metadata');
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.values(value).every((v) => typeof v === 'string')) {
    throw new UsageError('--metadata must be a JSON object of strings, e.g. \'{"tier":"pro"}\'');
  }
  return value as Record<string, string>;
}

function headersOf(flags: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const flag of flags) {
    const split = flag.indexOf(':');
    if (split <= 0) throw new UsageError(`--header ${JSON.stringify(flag)} is not 'NAME: VALUE'`);
    headers[flag.slice(0, split).trim().toLowerCase()] = flag.slice(split + 1).trim();
  }
  return headers;
}

function seedOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_SEED;
  if (!/^\d{1,10}$/.test(text) || Number(text) > 0xffffffff) throw new UsageError(`--seed must be an integer from 0 to ${0xffffffff}, not ${JSON.stringify(text)}`);
  return Number(text);
}

/** The flag a simulation error's param came from (a header came from --metadata or --header). */
function optionOf(param: string): string {
  if (param === 'open_circuits') return 'open';
  if (param === METADATA_HEADER) return 'metadata';
  return param.startsWith('x-gateway-') ? 'header' : param;
}
