// Cloud C's invoke of a model whose body is its vendor's own format is metered by the counts the
// service reports beside it: the answer's `x-amzn-bedrock-*-token-count` headers, or a stream's
// last chunk's `amazon-bedrock-invocationMetrics`; the prompt cache's reads and writes counted as
// input, as converse's are. Anything that is not a count reports nothing.
import { describe, expect, it } from 'vitest';
import { invocationMetricsUsageOf, invokeHeadersUsageOf } from '../../runtime/pipeline/log/usage-of.ts';

describe('an invoke answer\'s headers', () => {
  it('give its input and output, and its cache\'s reads and writes as input', () => {
    expect(invokeHeadersUsageOf({ 'x-amzn-bedrock-input-token-count': '14', 'x-amzn-bedrock-output-token-count': '36' }))
      .toEqual({ inputTokens: 14, outputTokens: 36, cachedInputTokens: 0, totalTokens: 50, estimated: false });
    const cached = invokeHeadersUsageOf({ 'x-amzn-bedrock-input-token-count': '10', 'x-amzn-bedrock-output-token-count': '5', 'x-amzn-bedrock-cache-read-input-token-count': '100', 'x-amzn-bedrock-cache-write-input-token-count': '20' });
    expect(cached).toMatchObject({ inputTokens: 130, outputTokens: 5, cachedInputTokens: 100, cacheCreationInputTokens: 20, totalTokens: 135 });
  });

  it('report nothing without an input count, or with one that is no count', () => {
    expect(invokeHeadersUsageOf({})).toBeNull();
    expect(invokeHeadersUsageOf({ 'x-amzn-bedrock-output-token-count': '36' })).toBeNull();
    for (const odd of ['-1', '1.5', 'abc', '', '9'.repeat(30), ['1', '2']]) expect(invokeHeadersUsageOf({ 'x-amzn-bedrock-input-token-count': odd }), String(odd)).toBeNull();
    // An odd output count is no count: 0.
    expect(invokeHeadersUsageOf({ 'x-amzn-bedrock-input-token-count': '3', 'x-amzn-bedrock-output-token-count': 'x' })?.outputTokens).toBe(0);
  });
});

describe('an invoke stream\'s invocation metrics', () => {
  it('give its input and output, and its cache\'s reads and writes as input', () => {
    expect(invocationMetricsUsageOf({ inputTokenCount: 7, outputTokenCount: 9, invocationLatency: 12, firstByteLatency: 5 }))
      .toEqual({ inputTokens: 7, outputTokens: 9, cachedInputTokens: 0, totalTokens: 16, estimated: false });
    expect(invocationMetricsUsageOf({ inputTokenCount: 7, outputTokenCount: 9, cacheReadInputTokenCount: 40, cacheWriteInputTokenCount: 3 })).toMatchObject({ inputTokens: 50, cachedInputTokens: 40, cacheCreationInputTokens: 3 });
  });

  it('report nothing for another value', () => {
    for (const odd of [null, undefined, 7, 'x', {}, { inputTokenCount: '7' }, { inputTokenCount: -1 }, { inputTokenCount: 1e300 }]) expect(invocationMetricsUsageOf(odd), JSON.stringify(odd)).toBeNull();
    expect(invocationMetricsUsageOf({ inputTokenCount: 4, outputTokenCount: -2 })?.outputTokens).toBe(0);
  });
});
