// Whether an object has an own enumerable key, without building its key list: the request path asks
// it of option maps that are nearly always empty.

export function hasKeys(object: Readonly<Record<string, unknown>>): boolean {
  for (const _ in object) return true;
  return false;
}
