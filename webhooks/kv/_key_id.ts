// A string that identifies a KV key, for comparing keys in memory.

/** Identifies a key: equal ids for equal keys, of any part type. */
export function keyId(key: Deno.KvKey): string {
  let out = "";
  for (const part of key) {
    if (part instanceof Uint8Array) {
      out += "b" + part.toHex();
    } else if (typeof part === "string") {
      out += "s" +
        (part.includes("/") || part.includes("\\") ? part.replaceAll("\\", "\\\\").replaceAll("/", "\\/") : part);
    } else out += (typeof part)[0] + String(part);
    out += "/";
  }
  return out;
}

/** Ids of key arrays this module made and never changes (claim keys, the keys of checks it keeps). */
const remembered = new WeakMap<Deno.KvKey, string>();

/** {@linkcode keyId} of a key array this module made and never changes, computed once. */
export function ownKeyId(key: Deno.KvKey): string {
  let id = remembered.get(key);
  if (id === undefined) remembered.set(key, id = keyId(key));
  return id;
}

/** {@linkcode keyId} of any key: a remembered one's ({@linkcode ownKeyId}), else computed. */
export function anyKeyId(key: Deno.KvKey): string {
  return remembered.get(key) ?? keyId(key);
}
