// The in-memory response cache at its byte bound: what a store (a MISS path's last step, which
// evicts the least recently used) and a hit cost once the cache is full and has turned over, in
// this process, with no HTTP around it. A full cache is the steady state of a busy gateway.
// Run: node bench/memory-cache-bench.ts [--max-bytes 268435456] [--answer-bytes 2000] [--turns 3]
import { parseArgs } from 'node:util';
import type { CachedAnswer } from '../runtime/pipeline/cache/cached-answer.ts';
import { DEFAULT_CACHE_MAX_BYTES } from '../runtime/pipeline/cache/cache-settings.ts';
import { MemoryResponseCache } from '../runtime/pipeline/cache/memory-cache.ts';

const HELP = `Usage: node bench/memory-cache-bench.ts [options]

Fills the in-memory response cache to its bound with answers of --answer-bytes, keeps storing new
ones for --turns times as many as it holds (each store evicts the oldest), hitting a recent entry
after each store, and prints the µs per store and per hit in each turn.

Options:
  --max-bytes N     the cache's bound (default ${DEFAULT_CACHE_MAX_BYTES}, GATEWAY_CACHE_MAX_BYTES's default)
  --answer-bytes N  body bytes of each stored answer (default 2000)
  --turns N         times the cache's worth of stores measured after filling it (default 3)
  -h, --help        show this help
`;

const { values } = parseArgs({
  options: {
    'max-bytes': { type: 'string', default: String(DEFAULT_CACHE_MAX_BYTES) },
    'answer-bytes': { type: 'string', default: '2000' },
    turns: { type: 'string', default: '3' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const maxBytes = Number(values['max-bytes']);
const body = Buffer.alloc(Number(values['answer-bytes']), 'a');
const turns = Number(values.turns);
const tags = { organisation: 'org', namespace: null, configId: null };
const answer = (i: number): CachedAnswer => ({ status: 200, headers: { 'content-type': 'application/json' }, body, storedAt: i, leafPath: 'config', provider: 'openai' });

const cache = new MemoryResponseCache(maxBytes);
let n = 0;
while (cache.bytes + body.length + 256 <= maxBytes) await cache.set(`k${n++}`, answer(n), 3_600_000, tags);
const held = cache.entries;
process.stdout.write(`filled: ${held} answers of ${body.length} B (${(cache.bytes / 1048576).toFixed(0)} MB)\n`);
for (let turn = 1; turn <= turns; turn++) {
  let storeMs = 0;
  let hitMs = 0;
  for (let i = 0; i < held; i++, n++) {
    let t = performance.now();
    await cache.set(`k${n}`, answer(n), 3_600_000, tags);
    storeMs += performance.now() - t;
    t = performance.now();
    await cache.get(`k${n - (i % 100)}`);
    hitMs += performance.now() - t;
  }
  process.stdout.write(`turn ${turn}: ${((storeMs * 1000) / held).toFixed(2)} µs per store (each evicting), ${((hitMs * 1000) / held).toFixed(2)} µs per hit\n`);
}
