// Answers whose bytes are all in memory are ended together in the event loop's check phase
// (runtime/upstream/end-in-turn.ts) once turns make more than one answer: none is written while the
// turn that made it still runs, all are written in the order they were made, one whose client left
// is skipped, one whose end throws is cut without stopping the others, and each caller learns when
// its answer went out. After a turn with a single answer (a lone client), answers go out at once.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { endInTurn } from '../../runtime/upstream/end-in-turn.ts';

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

/** Ends a turn that made `answers` answers (to throwaway responses). */
async function turnOf(answers: number): Promise<void> {
  await nextTurn();
  for (let i = 0; i < answers; i++) void endInTurn(response('warm-up', []), null);
  await nextTurn();
}

describe('endInTurn after a busy turn', () => {
  it('writes the answers of one turn together, in order, after the turn', async () => {
    await turnOf(2);
    const log: string[] = [];
    const written = [endInTurn(response('a', log), Buffer.from('1')), endInTurn(response('b', log), null), endInTurn(response('c', log), Buffer.from('3'))];
    await Promise.resolve();
    expect(log).toEqual([]);
    await Promise.all(written);
    expect(log).toEqual(['a:1', 'b:', 'c:3']);
  });

  it('skips a response whose client left, and cuts one whose end throws without stopping the rest', async () => {
    await turnOf(2);
    const log: string[] = [];
    await Promise.all([
      endInTurn(response('gone', log, { destroyed: true }), Buffer.from('x')),
      endInTurn(response('bad', log, { throws: true }), Buffer.from('y')),
      endInTurn(response('good', log), Buffer.from('z')),
    ]);
    expect(log).toEqual(['bad destroyed: content-length mismatch', 'good:z']);
  });

  it('writes an answer made while a turn is being written in a later turn', async () => {
    await turnOf(2);
    const log: string[] = [];
    let later: Promise<void> | null = null;
    const first = endInTurn(response('first', log, { onEnd: () => (later = endInTurn(response('later', log), Buffer.from('2'))) }), Buffer.from('1'));
    void endInTurn(response('second', log), null);
    await first;
    await later;
    expect(log).toEqual(['first:1', 'second:', 'later:2']);
  });
});

describe('endInTurn after a quiet turn', () => {
  it('writes the answer at once: a lone client has nothing to share a wake-up with', async () => {
    await turnOf(1);
    const log: string[] = [];
    const written = endInTurn(response('alone', log), Buffer.from('1'));
    expect(log).toEqual(['alone:1']);
    await written;
  });

  it('batches again once a turn made more than one answer', async () => {
    await turnOf(1);
    const log: string[] = [];
    await Promise.all([endInTurn(response('x', log), null), endInTurn(response('y', log), null)]);
    expect(log).toEqual(['x:', 'y:']);
    await nextTurn();
    const written = endInTurn(response('z', log), null);
    expect(log).toEqual(['x:', 'y:']);
    await written;
    expect(log).toEqual(['x:', 'y:', 'z:']);
  });
});
