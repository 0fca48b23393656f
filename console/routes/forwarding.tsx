/**
 * "Forward to": a hook's relay destinations (docs/relay.md) at
 * `/webhooks/{id}/forward`: add a destination URL (its signing secret shown
 * once, on the page the add redirects to: _forward_reveal.ts), enable,
 * disable or remove one, and the dead letters of the hook with Redeliver.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import type { DeadLetter, Destination, Webhook } from "../../webhooks/mod.ts";
import { Csrf } from "../components/Csrf.tsx";
import { fieldError, Layout } from "../components/Layout.tsx";
import { type ConsoleEnv, type Deps, html, layoutFrame } from "../lib/context.ts";
import { DRAFT_NOTICE, draftText, takeDraft } from "../lib/drafts.ts";
import { oneAtATime } from "../lib/one_at_a_time.ts";
import { deadLetterOf, deadLettersOf, destinationsOf, hookExists, shownId, takeOff } from "./_forward_lookups.ts";
import { enabledField, formField } from "./_forward_fields.ts";
import { shownUrl } from "../lib/shown_url.ts";
import { DeadLetters } from "./_forward_dead.tsx";
import { NOTICES } from "./_forward_notices.ts";
import { type Added, takeReveal } from "./_forward_reveal.ts";
import { addDestination } from "./_forward_add.ts";
import { AddedSecret, notAdded, secretAlone, SecretShownOnce } from "./_forward_secret.tsx";
import { headingName } from "./_hook_names.ts";
import { destinationPage, DestinationPager, keepPage, type PageAt, pageAt } from "./_forward_pages.tsx";
import { DestinationsTable } from "./_forward_table.tsx";
import { PrivateNetworkHint } from "./_forward_private.tsx";

/** What the page shows besides the lists. */
interface PageOptions {
  notice?: string;
  error?: string;
  status?: 200 | 400 | 404 | 409;
  /** The destination just added, with its secret (shown this once). */
  added?: Added;
  /** The address asked for a secret that is not there to show (shown already, expired, another session's). */
  secretGone?: boolean;
  /** The URL typed, kept when the add was refused. */
  url?: string;
  /** Where the dead letters start (a cursor of the page before); absent: the newest. */
  deadFrom?: string;
  /** The page of destinations; absent: the one the address names. */
  at?: PageAt;
}

/** Adds the hook's "Forward to" page and its actions to `app`. */
export function forwardingRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  const pathOf = (id: string) => `/webhooks/${encodeURIComponent(id)}/forward`;
  /** The page of destinations an action's form came from, for its redirect (`""`: the first). */
  const kept = (c: Context<ConsoleEnv>) => {
    const at = pageAt((n) => c.req.query(n));
    return at === "last" ? "" : keepPage(at.after, "&");
  };

  /** The adds, one at a time per hook. */
  const oneAddAtATime = oneAtATime();

  async function page(c: Context<ConsoleEnv>, hook: Webhook, options: PageOptions = {}): Promise<Response> {
    const csrf = c.get("session")!.csrf;
    const shown = destinationPage(
      await destinationsOf(deps.relay, hook.id),
      options.at ?? pageAt((n) => c.req.query(n)),
    );
    const destinations = shown.values;
    const path = pathOf(hook.id);
    const callback = String(hook.entity?.callback ?? "");
    let dead: { values: DeadLetter[]; cursor: string; read: number };
    try {
      dead = await deadLettersOf(deps.relay, hook.id, destinations, options.deadFrom ?? "");
    } catch (err) {
      if (!(err instanceof TypeError) || options.deadFrom === undefined) throw err;
      // A cursor typed or kept from an older KV: the newest dead letters, and why.
      return await page(c, hook, {
        error: "That page of dead letters is not there: the newest are shown.",
        status: 400,
      });
    }
    return html(
      c,
      <Layout
        title={`Forward postbacks of ${await headingName(deps, hook)}`}
        subtitle={hook.id}
        {...layoutFrame(c, deps)}
        notice={options.notice}
        error={options.error}
      >
        <p>
          Postbacks this hook receives are forwarded to each enabled destination, signed with Standard Webhooks, and
          retried for about 27 hours. <a href={`/webhooks/${encodeURIComponent(hook.id)}`}>Back to the webhook</a>
        </p>
        {!callback.startsWith(`${deps.publicUrl}/hooks/`) && (
          <p class="notice warning" role="note" id="forward-elsewhere">
            This hook's postbacks go to{" "}
            <code>{callback || "no callback"}</code>, not to this console's receiver: they are forwarded only if that
            receiver hands them to this relay (a console on the same KV does).
          </p>
        )}
        {options.added && <AddedSecret added={options.added} />}
        {options.secretGone && <SecretShownOnce />}
        <h2>Destinations</h2>
        <DestinationsTable destinations={destinations} path={path} keep={keepPage(shown.after, "?")} csrf={csrf} />
        <DestinationPager page={shown} path={path} />
        <h2>Add a destination</h2>
        <form method="post" action={path} id="forward-add" class="stack" data-once>
          <Csrf token={csrf} />
          <label>
            Forward to (your app's URL){" "}
            <input
              type="url"
              name="url"
              required
              {...fieldError(options.error !== undefined && options.url !== undefined)}
              placeholder="https://app.example/webhooks"
              value={options.url ?? ""}
            />
          </label>
          <PrivateNetworkHint allowed={deps.allowPrivateNetwork ?? false} />
          <button type="submit">Add destination</button>
        </form>
        <h2>Dead letters</h2>
        <DeadLetters
          dead={dead}
          first={options.deadFrom === undefined}
          path={path}
          after={shown.after}
          csrf={csrf}
        />
      </Layout>,
      options.status ?? 200,
    );
  }

  async function hookOr404(c: Context<ConsoleEnv>): Promise<Webhook | Response> {
    const hook = await deps.webhooks.findByID(c.req.param("id") ?? "");
    return hook ?? hookGone(c);
  }

  function hookGone(c: Context<ConsoleEnv>, error?: string): Response {
    return html(
      c,
      <Layout title="Webhook not found" {...layoutFrame(c, deps)} error={error}>
        <p id="webhook-gone">
          No webhook has that id. <a href="/webhooks">All webhooks</a>
        </p>
      </Layout>,
      404,
    );
  }

  app.get("/webhooks/:id/forward", async (c) => {
    const hook = await hookOr404(c);
    if (hook instanceof Response) return hook;
    // Back from a sign-in after the session ended: the add's URL as it was sent, not added.
    const draft = await takeDraft(c, deps);
    const code = c.req.query("notice") ?? "";
    const notice = draft ? DRAFT_NOTICE : Object.hasOwn(NOTICES, code) ? NOTICES[code] : undefined;
    const url = draft?.kind === "forward" ? draftText(draft, "url") : undefined;
    const deadFrom = c.req.query("dead") || undefined;
    const reveal = c.req.query("reveal");
    if (reveal === undefined) return await page(c, hook, { notice, url, deadFrom });
    // The page an Add redirected to (and its reloads): the newest destinations, the one added among them, with its
    // secret the first time this session asks; a page no cache keeps, so that Back asks again and shows it no more.
    c.header("cache-control", "no-store");
    const added = await takeReveal(c, deps, hook.id, reveal);
    if (added === "missing") {
      return await page(c, hook, {
        url,
        deadFrom,
        error: "The destination was not added (or it was removed since): no secret is shown. Add it again.",
        at: "last",
      });
    }
    if (!added) {
      return await page(c, hook, {
        notice,
        url,
        deadFrom,
        secretGone: true,
        at: c.req.query("after") || c.req.query("before") ? undefined : "last",
      });
    }
    return await page(c, hook, { notice, added, at: "last" }).catch((err) => secretAlone(c, deps, hook, added, err));
  });

  app.post("/webhooks/:id/forward", async (c) => {
    const hook = await hookOr404(c);
    if (hook instanceof Response) return hook;
    const field = await formField(c, "url");
    if ("repeated" in field) {
      return await page(c, hook, { error: `No destination was added: ${field.repeated}; give one URL`, status: 400 });
    }
    const url = (field.value ?? "").trim();
    // A double click, or the form sent again (Back, then Add), finds the first one's destination. The
    // relay itself refuses a URL that already gets the hook's postbacks, in the commit that adds it (its URL index),
    // so a second console on this KV adding it at once is refused too, answered as here; the runner below only
    // spares this process the second add's work.
    return await oneAddAtATime(hook.id, () =>
      addDestination(c, deps, hook.id, url, {
        // Post/Redirect/Get: a reload of the page shown next asks for that page, not for this POST again.
        reveal: (token) => c.redirect(`${pathOf(hook.id)}?notice=added&reveal=${token}`, 303),
        refuse: (error, status) => page(c, hook, { error, status, url: shownUrl(url) }),
        notKept: (err) => notAdded(c, deps, hook, err),
        gone: () => hookGone(c, "No destination was added: the webhook was unregistered meanwhile"),
      }));
  });

  // The actions name the hook in their path: each acts only on what that hook's page shows (a destination of another
  // hook, or a dead letter of another hook, is left alone), and ids are looked up in lists, never used as KV keys.
  async function destinationOr404(c: Context<ConsoleEnv>, hook: Webhook): Promise<Destination | Response> {
    const id = c.req.param("dest") ?? "";
    const found = (await destinationsOf(deps.relay, hook.id)).find((d) => d.id === id);
    if (found) return found;
    return await page(c, hook, {
      error: `No destination ${shownId(id)} forwards this hook's postbacks: it was removed, or it is another hook's.`,
      status: 404,
    });
  }

  // The address bar after a refused action (its page is the POST's answer), or a bookmark: the page, not a 404.
  app.get("/webhooks/:id/forward/:action{.+}", (c) => c.redirect(pathOf(c.req.param("id")), 302));

  app.post("/webhooks/:id/forward/:dest/enabled", async (c) => {
    const hook = await hookOr404(c);
    if (hook instanceof Response) return hook;
    const destination = await destinationOr404(c, hook);
    if (destination instanceof Response) return destination;
    const enabled = await enabledField(c);
    if (typeof enabled === "string") {
      // A hand-made request or a stale form changes nothing: a missing, odd or repeated value must not disable it.
      return await page(c, hook, { error: `Nothing was changed: ${enabled}`, status: 400 });
    }
    let updated;
    try {
      updated = await deps.relay.destinations.update(destination.id, { enabled });
    } catch (err) {
      // A damaged record (docs/relay.md) is refused, untouched: the page says what is wrong and what to do.
      if (!(err instanceof TypeError)) throw err;
      const reason = err.message.replace(/^Cannot update destination: /, "");
      return await page(c, hook, { error: `Nothing was changed: ${reason}, then add it again.`, status: 409 });
    }
    const notice = updated ? (enabled ? "enabled" : "disabled") : "removed";
    return c.redirect(`${pathOf(hook.id)}?notice=${notice}${kept(c)}`, 303);
  });

  app.post("/webhooks/:id/forward/:dest/remove", async (c) => {
    const hook = await hookOr404(c);
    if (hook instanceof Response) return hook;
    const destination = await destinationOr404(c, hook);
    if (destination instanceof Response) return destination;
    const others = await takeOff(deps.relay, hook.id, destination, hookExists(deps));
    return c.redirect(`${pathOf(hook.id)}?notice=${others > 0 ? "unlinked" : "removed"}${kept(c)}`, 303);
  });

  app.post("/webhooks/:id/forward/redeliver/:entry", async (c) => {
    const hook = await hookOr404(c);
    if (hook instanceof Response) return hook;
    const entryId = c.req.param("entry") ?? "";
    // Another hook's dead letter, or one sent again already (a second click), is "gone" from this page.
    const found = await deadLetterOf(deps.relay, hook.id, entryId);
    if (found && !found.destination.enabled) {
      // It would only wait, unsent, while the destination is disabled: the user enables it first, knowingly.
      return await page(c, hook, {
        error: `The dead letter ${shownId(entryId)} was not sent again: its destination ` +
          `${shownUrl(found.destination.url)} is disabled. Enable it, then Redeliver.`,
        status: 409,
      });
    }
    let sent = false;
    try {
      sent = found !== null && await deps.relay.redeliver(entryId);
    } catch (err) {
      if (!(err instanceof RangeError)) throw err; // its destination is gone
    }
    return c.redirect(`${pathOf(hook.id)}?notice=${sent ? "redelivered" : "gone"}${kept(c)}`, 303);
  });
}
