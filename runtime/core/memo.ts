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
