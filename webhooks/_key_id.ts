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
