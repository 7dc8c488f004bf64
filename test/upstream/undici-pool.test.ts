// runtime/upstream/undici-pool.ts takes Pool from a path inside undici (the index loads fetch,
// WebSocket and more that the gateway never uses). These fail when an undici upgrade moves it, or
// when something on the upstream path starts loading the whole package again.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { Pool } from '../../runtime/upstream/undici-pool.ts';
import { RECORD_LOADED_MODULES } from '../support/loaded-modules.ts';

it('is the class undici exports as Pool', () => {
  expect(Pool).toBe(createRequire(import.meta.url)('undici').Pool);
});

const POOLS = new URL('../../runtime/upstream/pools.ts', import.meta.url).href;
const SCRIPT = `${RECORD_LOADED_MODULES}
import { createServer } from 'node:http';
const { poolFor, closeAllPools } = await import(${JSON.stringify(POOLS)});
const server = createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const body = await new Promise((resolve, reject) => {
  const chunks = [];
  poolFor('http://127.0.0.1:' + server.address().port).dispatch({ path: '/', method: 'GET' }, {
    onRequestStart: () => {},
    onResponseStart: () => {},
    onResponseData: (_controller, chunk) => chunks.push(chunk),
    onResponseEnd: () => resolve(Buffer.concat(chunks).toString()),
    onResponseError: (_controller, error) => reject(error),
  });
});
await closeAllPools();
server.close();
process.stdout.write(JSON.stringify({ body, loaded: [...loaded] }));
`;

it('a request through the gateway’s pools loads no module from undici’s index', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '--eval', SCRIPT], { timeout: 20_000 });
  const { body, loaded } = JSON.parse(stdout) as { body: string; loaded: string[] };
  expect(body).toBe('ok');
  const undici = loaded.filter((url) => url.includes('/node_modules/undici/')).map((url) => url.replace(/^.*\/node_modules\/undici\//, ''));
  expect(undici).toContain('lib/dispatcher/pool.js');
  expect(undici.filter((path) => path === 'index.js' || /^lib\/(web|api|mock|cache)\//.test(path))).toEqual([]);
});
