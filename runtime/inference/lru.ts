// A bounded least-recently-used map: a Map's insertion order is the recency order.

export class LruMap<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined && this.#entries.size > 1) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value as K);
  }

  get size(): number {
    return this.#entries.size;
  }
}
