// What the "Forward to" form (forwarding.tsx) says of private addresses when this console refuses them.

import type { VNode } from "preact";

/**
 * The hint under the add form of a console that refuses loopback, private and link-local destinations: an app on this
 * machine is refused until the console is started with `ALLOW_PRIVATE_NETWORK=1`, and the CLI's `listen` forwards to
 * one without it. A console that allows them shows nothing.
 */
export function PrivateNetworkHint({ allowed }: { allowed: boolean }): VNode | null {
  if (allowed) return null;
  return (
    <p class="hint" id="forward-private">
      An app on this machine (<code>localhost</code>,{" "}
      <code>127.0.0.1</code>) or on a private network is refused: start the console with{" "}
      <code>ALLOW_PRIVATE_NETWORK=1</code> to allow it, or run{" "}
      <code>deno task cli listen --forward-to URL --kv .data/console.kv</code>{" "}
      beside your app (this console's KV file, unless <code>KV_PATH</code> names another; docs/relay.md).
    </p>
  );
}
