// The warning `hooks register` says on stderr after registering a callback a platform on the internet cannot post to,
// as the console's register form does. The host is classified by the net part's `checkHost` (its public API, the
// rules the console's and the relay's outbound guard share), with a resolver that finds nothing: an IP literal or a
// `localhost` name is judged as it is, and a name is never looked up (a CLI run must not depend on DNS for a warning).

import { checkHost } from "../../net/mod.ts";

/** No lookup: a name is not known to be private here. */
const noLookup = () => Promise.resolve([]);

/**
 * The warning line for `callback` (of a hook `done`: registered, or updated), or `undefined` when its host is a name or a public address (or it is no URL,
 * which `register` has refused already). Names the host (no user info, path or query), never the whole URL.
 */
export async function callbackWarning(
  callback: string,
  done: "registered" | "updated" = "registered",
): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(callback);
  } catch {
    return undefined;
  }
  const { refused } = await checkHost(url, noLookup).catch(() => ({ refused: null }));
  if (refused === null) return undefined;
  return `Warning: the callback's host ${url.host} is a loopback, private, link-local, unspecified or other non-public address: ` +
    `a platform on the internet cannot post there (the hook is ${done} all the same). For postbacks to arrive, ` +
    "register a public URL instead: a tunnel's to this machine (where deno task cli receive serves them), or a " +
    "public receiver whose postbacks deno task cli listen --forward-to URL forwards here (docs/cli.md)";
}
