// A messages API create call's body of the API's frame with any JSON where its values go (a member,
// a block, a block's member), for the properties that its translations answer any body with a
// result or a gateway error naming where, never a crash.
import { fc } from '@fast-check/vitest';

export const hostileMessagesBody = fc.record({
  top: fc.dictionary(fc.constantFrom('model', 'system', 'max_tokens', 'stream', 'tools', 'tool_choice', 'metadata', 'thinking', 'output_config', 'context_management', 'stop_sequences', 'cache_control'), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
  turns: fc.array(fc.record({
    role: fc.oneof(fc.constantFrom('user', 'assistant', 'system'), fc.jsonValue({ maxDepth: 1 })),
    content: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 2 }), fc.array(fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.record({ type: fc.constantFrom('text', 'image', 'tool_use', 'tool_result', 'thinking'), text: fc.jsonValue({ maxDepth: 1 }), source: fc.jsonValue({ maxDepth: 2 }), content: fc.jsonValue({ maxDepth: 3 }), id: fc.jsonValue({ maxDepth: 1 }), name: fc.jsonValue({ maxDepth: 1 }), tool_use_id: fc.jsonValue({ maxDepth: 1 }), caller: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: ['type'] }),
    ), { maxLength: 3 })),
  }, { requiredKeys: [] }), { maxLength: 3 }),
}).map(({ top, turns }) => JSON.parse(JSON.stringify({ model: 'm', messages: turns, ...top })) as Record<string, unknown>);
