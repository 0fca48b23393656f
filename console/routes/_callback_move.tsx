/**
 * A console that moved: its hooks still post to where it was (a tunnel's URL
 * that changed at a restart, an old domain), and nothing arrives. A hook whose
 * callback is one of this console's receivers (`/hooks/{id}`, the id mapped to
 * this hook, or the hook's own record id) at another address is offered, on
 * its page, to point it at this console's address: the platform's PUT, then
 * the record; the receiver takes it by its id wherever it is served.
 *
 * @module
 */

import type { VNode } from "preact";
import type { Webhook } from "../../webhooks/mod.ts";
import { Csrf } from "../components/Csrf.tsx";
import type { Deps } from "../lib/context.ts";
import { receiverKey } from "../lib/kv_keys.ts";
import { shownUrl } from "../lib/shown_url.ts";

/** The answer to a move asked of a hook that is not one of this console's receivers elsewhere. */
export const NOT_MOVABLE =
  "Nothing was changed: the callback is not one of this console's receivers at another address";

/** Where this console would take `hook`'s postbacks, when its callback is one of its receivers elsewhere; else null. */
export async function movedCallback(deps: Deps, hook: Webhook, callback: string): Promise<string | null> {
  if (!callback || callback.startsWith(`${deps.publicUrl}/hooks/`)) return null;
  const url = URL.parse(callback);
  const id = url && /^\/hooks\/([^/]{1,200})$/.exec(url.pathname)?.[1];
  if (!id || url.search || url.hash) return null;
  const receiver = decodeURIComponent(id);
  if (receiver !== hook.id) {
    const mapped = await deps.kv.get<{ hookId?: unknown }>(receiverKey(receiver));
    if (mapped.value?.hookId !== hook.id) return null; // another console's receiver, or none
  }
  return `${deps.publicUrl}/hooks/${id}`;
}

/** The offer on the hook's page: where it posts, where this console is, and the button that moves it. */
export function CallbackMove(
  { from, to, action, csrf }: { from: string; to: string; action: string; csrf: string },
): VNode {
  return (
    <div class="offer" id="offer-move">
      <p>
        This hook posts to{" "}
        <code>{shownUrl(from)}</code>, one of this console's receivers at another address, and this console is at{" "}
        <code>{shownUrl(to)}</code>: nothing posted there reaches it. If this console moved (a tunnel's new URL, a new
        domain), point the hook here.
      </p>
      <form method="post" action={action}>
        <Csrf token={csrf} />
        <button type="submit">Point it at this console</button>
      </form>
    </div>
  );
}

/** Those of `hooks` that post to one of this console's receivers at another address (each looked up at once). */
export async function movedHooks(deps: Deps, hooks: Webhook[]): Promise<Webhook[]> {
  const moved = await Promise.all(hooks.map((hook) => movedCallback(deps, hook, String(hook.entity?.callback ?? ""))));
  return hooks.filter((_, i) => moved[i] !== null);
}

/** The webhooks list's word on its hooks that post to an old address of this console: each linked to its page. */
export function MovedBanner({ hooks }: { hooks: Webhook[] }): VNode | null {
  if (hooks.length === 0) return null;
  const origins = [...new Set(hooks.map((h) => URL.parse(String(h.entity?.callback))?.origin ?? ""))].filter(Boolean);
  const verb = hooks.length === 1 ? "posts" : "post";
  return (
    <div class="notice warning" role="note" id="moved-hooks">
      <p>
        {hooks.length} of the webhooks listed {verb}{" "}
        to another address of this console ({origins.map(shownUrl).join(", ")}), where nothing reaches this console now.
        If it moved, open each to point it here: {hooks.flatMap((h, i) => [
          i > 0 ? ", " : "",
          <a href={`/webhooks/${encodeURIComponent(h.id)}`} key={h.id}>{h.id}</a>,
        ])}.
      </p>
    </div>
  );
}
