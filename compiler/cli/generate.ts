// `gateway generate client --out DIR`: writes the typed TypeScript client (the same files as
// generated/client/, which `npm run generate` keeps in the repository) into DIR.
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CLIENT_DIR } from '../client/artifacts.ts';
import { generateClientArtifacts } from '../schemas/generate.ts';

const USAGE = `Usage: gateway generate client --out DIR

Writes the gateway's typed TypeScript client into DIR: client.ts (import GatewayClient from it),
http.ts, types.ts and the answer validators. No dependencies; any runtime with fetch.

Options:
  --out DIR    where to write (created when missing)
  -h, --help   this help`;

export async function runGenerate(argv: string[]): Promise<number> {
  let parsed: { values: { out?: string; help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (error) {
    process.stderr.write(`gateway generate: ${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (parsed.values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (parsed.positionals.length !== 1 || parsed.positionals[0] !== 'client' || parsed.values.out === undefined) {
    process.stderr.write(`gateway generate: give what to generate (client) and --out DIR\n\n${USAGE}\n`);
    return 2;
  }
  const out = resolve(parsed.values.out);
  const files = await generateClientArtifacts();
  await mkdir(out, { recursive: true });
  for (const file of files) await writeFile(join(out, file.path.slice(CLIENT_DIR.length + 1)), file.contents);
  process.stdout.write(`wrote ${files.length} files to ${relative(process.cwd(), out) || '.'}: import { GatewayClient } from './client.ts'\n`);
  return 0;
}
