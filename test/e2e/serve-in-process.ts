// `serve`'s gateway (serveSetup: control plane, cache, limits, log and metrics) started in this
// process over a temp folder of saved configs: what the e2e suites that need serve's services start.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveSetup } from '../../runtime/cli/serve.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { type RunningGateway, type StartGatewayOptions, startGateway } from '../../runtime/server/start.ts';

export interface ServedConfigs {
  gateway: RunningGateway;
  /** The temp folder: `configs/` (one file per config) and `data/`; the suite may add its own. */
  dir: string;
  /** Closes the gateway and removes the folder. */
  close(): Promise<void>;
}

/** `configs`: saved config ids to their JSON; `options` override the start options (storePollMs, …). */
export async function serveConfigs(label: string, adminKey: string, configs: Record<string, unknown>, options: Partial<StartGatewayOptions> = {}): Promise<ServedConfigs> {
  const dir = await mkdtemp(join(tmpdir(), `gateway-${label}-`));
  try {
    await mkdir(join(dir, 'configs'));
    for (const [id, config] of Object.entries(configs)) await writeFile(join(dir, 'configs', `${id}.json`), JSON.stringify(config));
    const gateway = await startGateway({ port: 0, dataDir: join(dir, 'data'), configsDir: join(dir, 'configs'), seedApiKey: adminKey, logger: silentLogger, setup: serveSetup, ...options });
    return {
      gateway,
      dir,
      async close() {
        await gateway.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
