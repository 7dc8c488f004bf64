// The memo helpers: `kept` makes a value once per key; `lastKept` holds one value per owner, for the
// key it was last asked with, so an owner asked with many keys in turn never holds more than one.
import { describe, expect, it } from 'vitest';
import { kept, lastKept, type LastKept } from '../../runtime/core/memo.ts';

describe('kept', () => {
  it('makes a value once per key', () => {
    const map = new Map<string, number>();
    let made = 0;
    expect(kept(map, 'a', () => ++made)).toBe(1);
    expect(kept(map, 'a', () => ++made)).toBe(1);
    expect(kept(map, 'b', () => ++made)).toBe(2);
  });
});

describe('lastKept', () => {
  it('answers the kept value while the key stays, and makes a new one when it changes', () => {
    const map = new WeakMap<object, LastKept<object, string>>();
    const owner = {};
    const first = {};
    const second = {};
    const made: string[] = [];
    const make = (name: string) => () => {
      made.push(name);
      return name;
    };
    expect(lastKept(map, owner, first, make('first'))).toBe('first');
    expect(lastKept(map, owner, first, make('first again'))).toBe('first');
    expect(lastKept(map, owner, second, make('second'))).toBe('second');
    // The first key's value was replaced, not kept beside the second's: asked again, it is made again.
    expect(lastKept(map, owner, first, make('first, remade'))).toBe('first, remade');
    expect(made).toEqual(['first', 'second', 'first, remade']);
  });

  it('keeps values per owner, and keeps nothing when making throws', () => {
    const map = new WeakMap<object, LastKept<string, number>>();
    const a = {};
    const b = {};
    expect(lastKept(map, a, 'k', () => 1)).toBe(1);
    expect(lastKept(map, b, 'k', () => 2)).toBe(2);
    expect(lastKept(map, a, 'k', () => 3)).toBe(1);
    expect(() => lastKept(map, a, 'other', () => { throw new Error('refused'); })).toThrow('refused');
    expect(lastKept(map, a, 'k', () => 4)).toBe(1);
  });
});
