/**
 * Forward to's Add (forwarding.tsx): the destination's secret is made and kept for the page the add redirects to
 * (_forward_reveal.ts) before the destination is added with it, so that no destination is ever stored whose secret
 * nobody can be shown. A URL that already gets the hook's postbacks is refused, unless this session added it and its
 * secret still waits: then the answer leads to that secret (an Add sent twice, or sent again after a kill).
 *
 * @module
 */

import type { Context } from "hono";
import { type Destination, newDestinationSecret } from "../../webhooks/mod.ts";
import { type ConsoleEnv, type Deps, describeError } from "../lib/context.ts";
import { shownUrl } from "../lib/shown_url.ts";
import { destinationsOf, hookExists } from "./_forward_lookups.ts";
import { addRefusal } from "./_forward_refusal.ts";
import { dropReveal, keepReveal, type Kept, markAdded, pendingReveal } from "./_forward_reveal.ts";

/**
 * The longest destination URL the relay stores (docs/relay.md#production-use, its limits). Refused before its secret
 * is kept: one far longer (within the form's 256 KiB) would not fit in the KV entry that keeps it, and fail there.
 */
const MAX_URL = 8_192;

/** How the route answers an add. */
export interface AddAnswers {
  /** The redirect to the page that shows the secret kept under `token`. */
  reveal(token: string): Response;
  /** The page, the add refused with `error`. */
  refuse(error: string, status: 400 | 409): Promise<Response>;
  /** The answer when the secret could not be kept (nothing added). */
  notKept(err: unknown): Response;
  /** The answer when the hook is gone (unregistered meanwhile): nothing added. */
  gone(): Response;
}

/** Adds a destination at `url` for the hook `hookId`, answering through `answers`. */
export async function addDestination(
  c: Context<ConsoleEnv>,
  deps: Deps,
  hookId: string,
  url: string,
  answers: AddAnswers,
): Promise<Response> {
  /** The answer when a destination of the hook has this URL already: no second one under a secret never given. */
  const alreadyThere = async (): Promise<Response | null> => {
    const href = URL.parse(url)?.href;
    const same = href === undefined
      ? undefined
      : (await destinationsOf(deps.relay, hookId)).find((d: Destination) => d.url === href);
    if (!same) return null;
    // Added by this session, its secret not yet seen (an Add sent twice, scripts off, or a kill): to that secret.
    const waiting = await pendingReveal(c, deps, hookId, same);
    if (waiting) return answers.reveal(waiting);
    return await answers.refuse(
      `No destination was added: ${shownUrl(same.url)} already receives this hook's postbacks (its secret was ` +
        "shown when it was added; remove it and add it again for a new one).",
      409,
    );
  };
  const length = Math.max(url.length, URL.parse(url)?.href.length ?? 0);
  if (length > MAX_URL) {
    return await answers.refuse(addRefusal(`'url' must be at most ${MAX_URL} characters, got ${length}`), 400);
  }
  const same = await alreadyThere();
  if (same) return same;
  const secret = newDestinationSecret();
  let kept: Kept;
  try {
    kept = await keepReveal(c, deps, hookId, url, secret);
  } catch (err) {
    return answers.notKept(err);
  }
  let added: Destination;
  try {
    added = await deps.relay.destinations.add({ url, hookIds: [hookId], secret, unique: true });
  } catch (err) {
    // Another failure may come after the destination is stored: its secret stays kept, for the form sent again.
    if (!(err instanceof TypeError)) throw err;
    // Refused, nothing added: the reveal goes, lest it be taken for another's destination at this URL; those it
    // dropped come back (one may be of the add that won, sent at once to another process).
    await dropReveal(c, deps, kept);
    const there = await alreadyThere(); // added by another console on this KV meanwhile
    if (there) return there;
    return await answers.refuse(addRefusal(describeError(err)), 400);
  }
  // The relay checked the hook before storing it: an Unregister at once (another tab) may have removed the record and
  // forgotten its destinations between the two. Then this one goes too, rather than stay, secret and all, on no page.
  if (!await hookExists(deps)(hookId).catch(() => true)) {
    await deps.relay.destinations.remove(added.id).catch(() => {});
    await dropReveal(c, deps, kept).catch(() => {});
    return answers.gone();
  }
  await markAdded(c, deps, kept.token, added.id);
  return answers.reveal(kept.token);
}
