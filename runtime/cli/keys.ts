// `gateway keys create|list|revoke`: manage gateway API keys in the store (the SQLite file under
// --data, or PostgreSQL when DATABASE_URL is set). Running servers pick the change up from the
// store's change feed within a second.
import type { ApiKeyRecord } from '../store/api-key-store.ts';
import { isApiKeyScope } from '../store/api-key-store.ts';
import { InvalidApiKeyInput } from '../store/api-key-input.ts';
import { DEFAULT_DATA_DIR, type GatewayStore, openGatewayStore } from '../store/open-store.ts';
import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, reportUsageError, UsageError } from './args.ts';
import { apiKeyWire } from '../api/keys/wire.ts';

export const KEYS_USAGE = `Usage: gateway keys <command> [options]

Manages gateway API keys (sent by clients in x-gateway-api-key). Only a SHA-256 hash of each key is
stored; a new key is printed once and cannot be shown again.

Commands:
  create [--name N] [--scope admin|inference] [--workspace-id UUID] [--organisation-id UUID]
                   create a key and print it (scope defaults to inference)
  list             list keys (never prints secrets)
  revoke ID        revoke the key with that ID

Options (every command):
  --data DIR       data directory holding the embedded store (default ${DEFAULT_DATA_DIR})
  --json           print JSON instead of text
  -h, --help       show this help

Environment:
  DATABASE_URL     PostgreSQL URL: use that store instead of the SQLite file under --data`;

const COMMON = {
  data: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const CREATE_OPTIONS = {
  ...COMMON,
  name: { type: 'string' },
  scope: { type: 'string' },
  'workspace-id': { type: 'string' },
  'organisation-id': { type: 'string' },
} as const;

export async function runKeys(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
        throw new UsageError('missing keys command');
      case '-h':
      case '--help':
      case 'help':
        process.stdout.write(`${KEYS_USAGE}\n`);
        return EXIT_OK;
      case 'create':
        return await create(rest);
      case 'list':
        return await list(rest);
      case 'revoke':
        return await revoke(rest);
      default:
        throw new UsageError(`unknown keys command ${JSON.stringify(command)}`);
    }
  } catch (err) {
    if (err instanceof UsageError) return reportUsageError('keys', err, KEYS_USAGE);
    if (err instanceof InvalidApiKeyInput) return reportUsageError('keys', new UsageError(err.message), KEYS_USAGE);
    if (err instanceof StoreUnavailable) {
      process.stderr.write(`gateway keys: ${err.message}\n`);
      return EXIT_FAILURE;
    }
    throw err;
  }
}

/** A store that could not be opened (no store in the folder, a database that does not answer): said, not thrown with a stack. */
class StoreUnavailable extends Error {}

/** `existing`: list and revoke read a store serve made; create may make the first one (before any serve). */
async function withStore<T>(dataDir: string | undefined, work: (store: GatewayStore) => Promise<T>, existing = true): Promise<T> {
  let store: GatewayStore;
  try {
    store = await openGatewayStore({ dataDir: dataDir ?? DEFAULT_DATA_DIR, databaseUrl: process.env.DATABASE_URL || null, existing });
  } catch (err) {
    throw new StoreUnavailable((err as Error).message);
  }
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

async function create(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, CREATE_OPTIONS);
  if (values.help === true) return help();
  if (values.scope !== undefined && !isApiKeyScope(values.scope)) {
    throw new UsageError(`--scope must be admin or inference, not ${JSON.stringify(values.scope)}`);
  }
  const created = await withStore(
    values.data,
    (store) =>
      store.apiKeys.create({
        name: values.name,
        scope: values.scope as ApiKeyRecord['scope'] | undefined,
        workspaceId: values['workspace-id'],
        organisationId: values['organisation-id'],
      }),
    false,
  );
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify({ ...apiKeyWire(created.record), key: created.key })}\n`);
  } else {
    process.stdout.write(`${describe(created.record)}\nkey:             ${created.key}\n`);
    process.stderr.write('Store this key now: it is not kept and cannot be shown again.\n');
  }
  return EXIT_OK;
}

async function list(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, COMMON);
  if (values.help === true) return help();
  const records = await withStore(values.data, (store) => store.apiKeys.list());
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify(records.map(apiKeyWire))}\n`);
    return EXIT_OK;
  }
  if (records.length === 0) {
    process.stdout.write('no API keys\n');
    return EXIT_OK;
  }
  const rows = [['ID', 'NAME', 'SCOPE', 'CREATED', 'REVOKED']];
  for (const r of records) rows.push([r.id, r.name, r.scope, r.createdAt, r.revokedAt ?? '-']);
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  for (const row of rows) process.stdout.write(`${row.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()}\n`);
  return EXIT_OK;
}

async function revoke(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, COMMON, true);
  if (values.help === true) return help();
  if (positionals.length !== 1) throw new UsageError('keys revoke takes exactly one key ID');
  const id = positionals[0];
  const record = await withStore(values.data, (store) => store.apiKeys.revoke(id));
  if (record === null) {
    process.stderr.write(`gateway: no API key has ID ${id}\n`);
    return EXIT_FAILURE;
  }
  if (values.json === true) process.stdout.write(`${JSON.stringify(apiKeyWire(record))}\n`);
  else process.stdout.write(`revoked ${record.id} at ${record.revokedAt}\n`);
  return EXIT_OK;
}

function describe(record: ApiKeyRecord): string {
  return [
    `id:              ${record.id}`,
    `name:            ${record.name}`,
    `scope:           ${record.scope}`,
    `workspace_id:    ${record.workspaceId}`,
    `organisation_id: ${record.organisationId}`,
    `created_at:      ${record.createdAt}`,
  ].join('\n');
}

function help(): number {
  process.stdout.write(`${KEYS_USAGE}\n`);
  return EXIT_OK;
}
