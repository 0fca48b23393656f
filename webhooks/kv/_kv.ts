// Private KV plumbing shared by the stores: retry on a locked database, the
// value-size check, and batched reads that stay within KV Connect's limits.

import { retryWhileLocked } from "./kv_retry.ts";

/** Largest value Deno KV accepts, in bytes. */
export const MAX_VALUE_BYTES = 65_536;
/** Most keys one `getMany` accepts. */
const MAX_GET_MANY = 10;
/** Runs a KV operation again while another process holds the write lock (see kv_retry.ts). */
export const withLockRetry: <T>(op: () => Promise<T>) => Promise<T> = retryWhileLocked;

/**
 * Commits an atomic operation built by `build`, retrying the whole read-check-
 * write cycle when a versionstamp check fails (another writer got there first)
 * and when the database is locked. `build` returns the operation in a
 * one-element tuple (an `AtomicOperation` cannot be awaited), or `null` to stop
 * without writing; the result is then `null`.
 */
export async function commitWithRetry(
  build: () => Promise<[Deno.AtomicOperation] | null>,
  what: string,
): Promise<Deno.KvCommitResult | null> {
  for (let attempt = 1; attempt <= 20; attempt++) {
    const built = await withLockRetry(build);
    if (built === null) return null;
    const result = await withLockRetry(() => built[0].commit());
    if (result.ok) return result;
  }
  throw new Error(`Cannot ${what}: too many concurrent writers, try again`);
}

/** Reads many keys in batches of ten, the most KV Connect allows per call. */
export async function getManyBatched<T>(
  kv: Deno.Kv,
  keys: Deno.KvKey[],
): Promise<Deno.KvEntryMaybe<T>[]> {
  const out: Deno.KvEntryMaybe<T>[] = [];
  for (let i = 0; i < keys.length; i += MAX_GET_MANY) {
    const batch = keys.slice(i, i + MAX_GET_MANY);
    out.push(...await withLockRetry(() => kv.getMany<T[]>(batch)));
  }
  return out;
}

/** Collects every entry under a prefix, retrying a locked database. */
export async function listAll<T>(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Deno.KvEntry<T>[]> {
  return await withLockRetry(async () => {
    const out: Deno.KvEntry<T>[] = [];
    for await (const entry of kv.list<T>({ prefix })) out.push(entry);
    return out;
  });
}

/**
 * Turns Deno KV's size errors into a `RangeError` that names what was being
 * saved; any other error is returned as it is. Checking the size on the
 * commit, rather than serialising every value beforehand, keeps `save` at
 * the cost of the KV operations themselves.
 */
export function sizeError(error: unknown, what: string, value?: object): unknown {
  if (value !== undefined) error = unstorableError(error, what, value);
  const message = error instanceof TypeError ? error.message : "";
  if (/value too large/i.test(message)) {
    return new RangeError(`Cannot save ${what}: it is larger than the ${MAX_VALUE_BYTES} bytes one KV value holds`);
  }
  if (isKeyTooLarge(error)) {
    return new RangeError(`Cannot save ${what}: one of its keys is longer than the 2048 bytes KV allows`);
  }
  return error;
}

/**
 * KV's refusal of a value it cannot serialise (a function, a symbol, a WeakMap: V8's "f () {} could not be cloned.",
 * the function's source shown) as a `TypeError` that says what was being saved and names the field of `value` that
 * holds it, never showing the value; any other error is returned as it is. Looked for only once a commit failed.
 */
export function unstorableError(error: unknown, what: string, value: object): unknown {
  if (!(error instanceof TypeError) || !/could not be cloned/.test(error.message)) return error;
  const field = Object.keys(value).find((key) => !storable((value as Record<string, unknown>)[key]));
  return new TypeError(
    `Cannot save ${what}: ${field === undefined ? "it" : `'${field}'`} holds a value KV cannot store (a function, ` +
      "a symbol, a WeakMap, a promise); only plain data is saved",
  );
}

/** Whether KV's serialiser (V8's, as `structuredClone`) takes `value`. */
function storable(value: unknown): boolean {
  try {
    structuredClone(value);
    return true;
  } catch {
    return false;
  }
}

/** Whether an error is Deno KV refusing a key longer than the 2048 bytes it holds. */
export function isKeyTooLarge(error: unknown): boolean {
  return error instanceof TypeError && /key too large/i.test(error.message);
}

/**
 * Runs a read whose key holds a caller's string; a key too long for KV
 * answers `none`, since nothing can be stored under it (saves refuse such
 * keys with a `RangeError`). Other errors pass.
 */
export async function unlessKeyTooLarge<T>(read: () => Promise<T>, none: T): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (isKeyTooLarge(error)) return none;
    throw error;
  }
}
