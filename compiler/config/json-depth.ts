// How deeply a parsed JSON value nests, found without recursion. JSON.parse itself takes any depth,
// but every walk after it (validators, canonical JSON, stores, templates) recurses: a value nested
// thousands deep would overflow the stack (a 500) in whichever walk came first. Every JSON the
// gateway accepts is checked here first.

/** Request bodies and stored resources: far deeper than any real chat request or JSON Schema. */
export const MAX_BODY_DEPTH = 128;
/** Configs (inline and saved): their own target nesting is bounded much lower (CFG_TOO_DEEP). */
export const MAX_CONFIG_DEPTH = 64;

/** Whether `value` nests more than `max` levels of arrays and objects. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: Array<{ value: object; depth: number }> = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (depth > max) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}
