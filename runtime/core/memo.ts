// A value kept for a key, made the first time it is asked for: one implementation for the places that
// do a piece of work once per object (a phase's input, a request's body, a router's hook list).

interface Keeps<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): unknown;
}

/** The value `map` holds for `key`, made by `make` and kept when it holds none. */
export function kept<K, V>(map: Keeps<K, V>, key: K, make: (key: K) => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make(key);
    map.set(key, value);
  }
  return value;
}

/** What lastKept holds for one owner: the value made for the key it was last asked with. */
export interface LastKept<K, V> {
  key: K;
  value: V;
}

/**
 * The value made for `key` on `owner`, kept until the owner is asked with another key, which
 * replaces it: one value per owner at most. For a request's large derived bytes (a body with a
 * target's overrides, a provider's mapping of it), which retries of one target ask for again and
 * again, and which a fallback over many targets must not pile up for the request's whole life.
 */
export function lastKept<O extends object, K, V>(map: WeakMap<O, LastKept<K, V>>, owner: O, key: K, make: () => V): V {
  const last = map.get(owner);
  if (last !== undefined && last.key === key) return last.value;
  const value = make();
  map.set(owner, { key, value });
  return value;
}
