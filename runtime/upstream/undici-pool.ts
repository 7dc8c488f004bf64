// undici's Pool without the rest of undici. The package's index also loads fetch, WebSocket,
// EventSource, the cache stores and the mock agents: about 13 MB of a serving process that only
// dispatches through pools. undici is pinned exactly and has no `exports` map, so this path belongs to
// the pinned version; test/upstream/undici-pool.test.ts fails if it stops being undici's own Pool.
import { createRequire } from 'node:module';
import type * as undici from 'undici';

/** The index adds request, stream, pipeline, connect and upgrade to Dispatcher.prototype; without it a pool has dispatch. */
export type Pool = Omit<undici.Pool, 'request' | 'stream' | 'pipeline' | 'connect' | 'upgrade'>;
export const Pool = createRequire(import.meta.url)('undici/lib/dispatcher/pool.js') as new (url: string | URL, options?: undici.Pool.Options) => Pool;
