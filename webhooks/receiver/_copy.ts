// A deep copy of plain data (objects, arrays, primitives), several times
// faster than structuredClone for the small records a receiver hands out per
// postback. Anything else (a Date, a Map, a cycle, deep nesting) is copied by
// structuredClone, as KV itself would.

const DEEPEST = 32;
const TOO_DEEP = Symbol("too deep");

function copy(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (depth > DEEPEST) throw TOO_DEEP;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) throw TOO_DEEP;
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i], depth + 1);
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw TOO_DEEP;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = copy((value as Record<string, unknown>)[key], depth + 1);
    // An own "__proto__" (JSON.parse makes one) stays a property, as structuredClone keeps it.
    if (key === "__proto__") {
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    } else out[key] = item;
  }
  return out;
}

/** A deep copy of `value` that shares nothing with it. */
export function copyData<T>(value: T): T {
  try {
    return copy(value, 0) as T;
  } catch (error) {
    if (error !== TOO_DEEP) throw error;
    return structuredClone(value);
  }
}
