// How pages show a URL that may carry credentials.

/**
 * A URL as pages show it (a relay destination's, a hook's callback): a password in it (`https://user:pass@host/`, sent as Basic auth) is a secret
 * and shows as `***`, as does a user name that stands alone (`https://TOKEN@host/` is how tokens are often passed);
 * the rest as given. The relay refuses such URLs now (earlier versions stored them), a callback may hold them, and a refused form keeps its value
 * (one no parser reads shows `***` from its scheme's end to its last `@`).
 */
export function shownUrl(url: string): string {
  const parsed = URL.parse(url);
  if (parsed === null) {
    // No parser reads it, so its user info cannot be cut out exactly: from the scheme's end to the last `@`.
    if (!url.includes("@")) return url;
    const start = /^[a-z][a-z0-9+.-]*:\/*/i.exec(url)?.[0].length ?? 0;
    return `${url.slice(0, start)}***${url.slice(url.lastIndexOf("@"))}`;
  }
  if (parsed.password === "" && parsed.username === "") return url;
  if (parsed.password === "") parsed.username = "***";
  else parsed.password = "***";
  return parsed.href;
}
