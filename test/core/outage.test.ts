// An outage is logged when it starts and when it ends, whatever happens between: a property over any
// sequence of failures and successes.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { LogFields } from '../../runtime/core/log.ts';
import { Outage } from '../../runtime/core/outage.ts';

describe('Outage', () => {
  test.prop([fc.array(fc.boolean(), { maxLength: 60 })])('logs each run of failures once at its start, and its end', (succeeded) => {
    const lines: Array<[string, string, LogFields | undefined]> = [];
    const logger = {
      info: (event: string, fields?: LogFields) => void lines.push(['info', event, fields]),
      warn: (event: string, fields?: LogFields) => void lines.push(['warn', event, fields]),
      error: (event: string, fields?: LogFields) => void lines.push(['error', event, fields]),
    };
    const outage = new Outage(logger, 'thing_failed', 'thing_recovered', 'error');
    const expected: Array<[string, string, LogFields | undefined]> = [];
    let down = false;
    let asked = 0;
    succeeded.forEach((ok, i) => {
      if (ok) {
        outage.recovered({ at: i });
        if (down) expected.push(['info', 'thing_recovered', { at: i }]);
        down = false;
      } else {
        outage.failed(() => (asked++, { at: i }));
        if (!down) expected.push(['error', 'thing_failed', { at: i }]);
        down = true;
      }
      expect(outage.down).toBe(down);
    });
    expect(lines).toEqual(expected);
    // The failure's fields are made only when they are logged.
    expect(asked).toBe(expected.filter(([, event]) => event === 'thing_failed').length);
  });
});
