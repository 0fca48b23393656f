// KV_PATH of the console: opening it (a file's folder made first, a KV Connect URL told by its scheme in any case),
// and what the console says when it cannot (a folder, a file that is no database, a path under a file): one line
// naming KV_PATH, never the KV Connect access token.

/** Whether KV_PATH names a KV Connect database: an http(s) URL, its scheme in any case (as a URL may write it). */
export function isKvConnectUrl(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

/**
 * Opens the KV at `location`, the folder of a file made first. A KV Connect URL is opened with its scheme in lower
 * case: Deno.openKv takes `HTTPS://` for a file path, which would keep the data in a local file.
 */
export async function openKv(location: string): Promise<Deno.Kv> {
  if (isKvConnectUrl(location)) return await Deno.openKv(location.replace(/^https?/i, (s) => s.toLowerCase()));
  if (location !== ":memory:") {
    const dir = location.includes("/") ? location.slice(0, location.lastIndexOf("/")) : "";
    if (dir) await Deno.mkdir(dir, { recursive: true });
  }
  return await Deno.openKv(location);
}

/** KV_PATH as a message shows it: a KV Connect URL without its user info, should one hold any. */
function shownKvPath(kvPath: string): string {
  const url = isKvConnectUrl(kvPath) ? URL.parse(kvPath) : null;
  return url ? `'${url.origin}${url.pathname}'` : `'${kvPath}'`;
}

/** Why opening the KV failed, on one line, the KV Connect access token never shown. */
function unsaidToken(err: unknown): string {
  const token = Deno.env.get("DENO_KV_ACCESS_TOKEN");
  const why = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, " ").trim();
  return token ? why.replaceAll(token, "***") : why;
}

/** The one line the console ends with when it cannot open KV_PATH, `err` being why. */
export function kvOpenRefusal(kvPath: string, err: unknown): string {
  return `Cannot start the console: cannot open KV_PATH ${shownKvPath(kvPath)}: ${unsaidToken(err)}`;
}
