// GATEWAY_LOG_WRITER: where the SQLite request log's inserts run (runtime/store/sqlite/sqlite-request-log-store.ts).
import { expect, it } from 'vitest';
import { UsageError } from '../../runtime/cli/args.ts';
import { logWriterFromEnv } from '../../runtime/cli/serve.ts';

it('takes auto, thread or main in any case; unset or empty leaves the default', () => {
  expect(logWriterFromEnv({})).toBeUndefined();
  expect(logWriterFromEnv({ GATEWAY_LOG_WRITER: '' })).toBeUndefined();
  expect(logWriterFromEnv({ GATEWAY_LOG_WRITER: 'auto' })).toBe('auto');
  expect(logWriterFromEnv({ GATEWAY_LOG_WRITER: ' Thread ' })).toBe('thread');
  expect(logWriterFromEnv({ GATEWAY_LOG_WRITER: 'MAIN' })).toBe('main');
});

it('refuses another value (beside DATABASE_URL, where it would do nothing, serve-env.ts refuses any: test/cli/serve-env.test.ts)', () => {
  expect(() => logWriterFromEnv({ GATEWAY_LOG_WRITER: 'worker' })).toThrow(new UsageError('GATEWAY_LOG_WRITER must be one of auto, thread, main, not "worker"'));
  expect(logWriterFromEnv({ DATABASE_URL: 'postgres://127.0.0.1/test' })).toBeUndefined();
});
