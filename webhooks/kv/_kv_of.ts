// Which KV a `Webhooks` store was made over, for the parts of the module that
// need KV of their own (the receiver's replay claims) without widening the
// public `Webhooks` interface. A WeakMap keeps no store alive.

const stores = new WeakMap<object, Deno.Kv>();

/** Remembers the KV of a store made by `createWebhooks`; returns the store. */
export function rememberKv<T extends object>(kv: Deno.Kv, hooks: T): T {
  stores.set(hooks, kv);
  return hooks;
}

/** The KV a store was made over, or `undefined` for an object `createWebhooks` did not make. */
export function kvOf(hooks: object): Deno.Kv | undefined {
  return stores.get(hooks);
}
