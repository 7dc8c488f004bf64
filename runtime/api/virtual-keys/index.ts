// Wires virtual keys into a started gateway: the master key, the in-memory ring (loaded, then kept
// current by the change feed), the transport's credential lookup, and the `/v1/virtual-keys`
// handlers the route table serves.
import type { ConfigResolver } from '../../inference/config-resolver.ts';
import { defaultProviders, type ProviderRegistry } from '../../providers/registry.ts';
import type { GatewaySetup } from '../../server/start.ts';
import { VIRTUAL_KEYS_KIND } from '../../store/virtual-key-store.ts';
import { virtualKeyHandlers } from './handlers.ts';
import { loadMasterKey, type MasterKey } from '../../store/master-key.ts';
import { VirtualKeyRing } from './virtual-key-ring.ts';
import type { ConfigCatalog } from '../configs/config-catalog.ts';

export { VirtualKeyRing } from './virtual-key-ring.ts';
export { loadMasterKey, MASTER_KEY_ENV, MASTER_KEY_FILE } from '../../store/master-key.ts';
export { virtualKeyHandlers, virtualKeyWire } from './handlers.ts';

export interface VirtualKeys {
  ring: VirtualKeyRing;
  master: MasterKey;
}

/** `configs`: the saved configs (the control plane's), so that a key they call is not deleted under them. */
export async function setupVirtualKeys(setup: GatewaySetup, resolver: ConfigResolver, options: { env?: NodeJS.ProcessEnv; providers?: ProviderRegistry; configs?: ConfigCatalog } = {}): Promise<VirtualKeys> {
  const master = await loadMasterKey(setup.dataDir, options.env);
  if (master.source === 'generated') setup.logger.info('master_key_generated', { key_id: master.id });
  const ring = new VirtualKeyRing(setup.store.virtualKeys, master, setup.logger);
  // Watch first, then load: a write landing in between is delivered again, and reloads are idempotent.
  await setup.store.changes.watch(VIRTUAL_KEYS_KIND, ring.onChange);
  await ring.loadAll(true);
  resolver.useCredentials(ring);
  const handlers = virtualKeyHandlers(setup.store, master, options.providers ?? defaultProviders(), options.configs ?? null);
  const served = new Set(setup.gateway.routes.routes.map((route) => route.handler));
  for (const [name, handler] of Object.entries(handlers)) if (served.has(name)) setup.gateway.registerHandler(name, handler);
  return { ring, master };
}
