// Answers whose bytes are all in memory are ended together in the event loop's check phase
// (runtime/upstream/end-in-turn.ts) while other responses are open: none is written while the turn
// that made it still runs, all are written in the order they were made, one whose client left is
// skipped, one whose end throws is cut without stopping the others, and each caller learns when its
// answer went out. A lone response's answer is written at once.
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerClosed, answerOpened, endInTurn } from '../../runtime/upstream/end-in-turn.ts';

/** The parts of a ServerResponse that endInTurn uses, noting what happened to it in `log`. */
function response(name: string, log: string[], options: { destroyed?: boolean; throws?: boolean; onEnd?: () => void } = {}): ServerResponse {
  return {
    destroyed: options.destroyed ?? false,
    end(body?: Buffer) {
      if (options.throws === true) throw new Error('content-length mismatch');
      log.push(`${name}:${body === undefined ? '' : body.toString()}`);
      options.onEnd?.();
    },
    destroy(error?: Error) {
      log.push(`${name} destroyed: ${error?.message}`);
    },
  } as unknown as ServerResponse;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('endInTurn with other responses open', () => {
  beforeEach(() => {
    answerOpened();
    answerOpened();
  });
  afterEach(() => {
    answerClosed();
    answerClosed();
  });

  it('writes the answers of one turn together, in order, after the turn', async () => {
    const log: string[] = [];
    const written = [endInTurn(response('a', log), Buffer.from('1')), endInTurn(response('b', log), null), endInTurn(response('c', log), Buffer.from('3'))];
    await Promise.resolve();
    expect(log).toEqual([]);
    await Promise.all(written);
    expect(log).toEqual(['a:1', 'b:', 'c:3']);
  });

  it('skips a response whose client left, and cuts one whose end throws without stopping the rest', async () => {
    const log: string[] = [];
    await Promise.all([
      endInTurn(response('gone', log, { destroyed: true }), Buffer.from('x')),
      endInTurn(response('bad', log, { throws: true }), Buffer.from('y')),
      endInTurn(response('good', log), Buffer.from('z')),
    ]);
    expect(log).toEqual(['bad destroyed: content-length mismatch', 'good:z']);
  });

  it('writes an answer made while a turn is being written in the next turn', async () => {
    const log: string[] = [];
    let later: Promise<void> | null = null;
    const first = endInTurn(response('first', log, { onEnd: () => (later = endInTurn(response('later', log), Buffer.from('2'))) }), Buffer.from('1'));
    await first;
    expect(log).toEqual(['first:1']);
    await nextTurn();
    await later;
    expect(log).toEqual(['first:1', 'later:2']);
  });
});

describe('endInTurn for a lone response', () => {
  it('writes the answer at once: nothing could join it in the turn', async () => {
    const log: string[] = [];
    answerOpened();
    try {
      const written = endInTurn(response('alone', log), Buffer.from('1'));
      expect(log).toEqual(['alone:1']);
      await written;
    } finally {
      answerClosed();
    }
  });
});
