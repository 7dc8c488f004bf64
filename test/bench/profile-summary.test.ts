// bench/profile-summary.ts's inclusive view: a function's time is its own and everything below it,
// counted once per sample however often it is on the stack, and only the gateway's own functions
// get a row.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { type CpuProfile, inclusiveTimes, summarise } from '../../bench/profile-summary.ts';

const ROOT = 'file:///repo';
const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });

/** root → handle (runtime) → insert (runtime) → run (native); handle → stringify (native); plus idle. */
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', ''), children: [2, 6] },
    { id: 2, callFrame: frame('handle', `${ROOT}/runtime/server/server.ts`), children: [3, 5] },
    { id: 3, callFrame: frame('insert', `${ROOT}/runtime/store/log.ts`), children: [4] },
    { id: 4, callFrame: frame('run', ''), children: [] },
    { id: 5, callFrame: frame('stringify', `${ROOT}/node_modules/dep/index.js`), children: [] },
    { id: 6, callFrame: frame('(idle)', ''), children: [] },
  ],
  samples: [4, 4, 3, 5, 2, 6, 6],
  timeDeltas: [10, 10, 5, 7, 3, 100, 100],
};

describe('profile summary, inclusive time', () => {
  it("adds each of the gateway's functions' own time to everything it called, idle left out", () => {
    const inclusive = inclusiveTimes(PROFILE);
    expect(Object.fromEntries(inclusive)).toEqual({
      'handle  runtime/server/server.ts:1': 35,
      'insert  runtime/store/log.ts:1': 25,
    });
    expect(summarise(PROFILE)).toContain("inclusive time of the gateway's own functions");
  });

  test.prop([fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 30 }), fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 30, maxLength: 30 })])(
    'a recursive function counts once per sample; no function has more than the busy time',
    (depths, deltas) => {
      // A chain of `depth` nested calls of one runtime function per sample, each its own leaf.
      const nodes: CpuProfile['nodes'] = [{ id: 1, callFrame: frame('(root)', ''), children: [] }];
      const samples: number[] = [];
      let next = 2;
      for (const depth of depths) {
        let parent = nodes[0]!;
        for (let level = 0; level < depth; level++) {
          const node = { id: next++, callFrame: frame('walk', `${ROOT}/runtime/core/walk.ts`), children: [] as number[] };
          parent.children!.push(node.id);
          nodes.push(node);
          parent = node;
        }
        samples.push(parent.id);
      }
      const timeDeltas = deltas.slice(0, samples.length);
      const busy = timeDeltas.reduce((a, b) => a + b, 0);
      expect(inclusiveTimes({ nodes, samples, timeDeltas }).get('walk  runtime/core/walk.ts:1') ?? 0).toBe(busy);
    },
  );
});
