// KV_PATH of the console: opening it (a file's folder made first), and what the console says when it cannot (a folder,
// a file that is no database, a path under a file): one line naming KV_PATH, never the KV Connect access token.

/** Opens the KV at `location`, the folder of a file made first. */
export async function openKv(location: string): Promise<Deno.Kv> {
  const remote = /^https?:\/\//.test(location);
  if (!remote && location !== ":memory:") {
    const dir = location.includes("/") ? location.slice(0, location.lastIndexOf("/")) : "";
    if (dir) await Deno.mkdir(dir, { recursive: true });
  }
  return await Deno.openKv(location);
}

/** KV_PATH as a message shows it: a KV Connect URL without its user info, should one hold any. */
function shownKvPath(kvPath: string): string {
  const url = /^https?:\/\//i.test(kvPath) ? URL.parse(kvPath) : null;
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
