// The signing secret of a destination just added to a hook's "Forward to" page (forwarding.tsx): shown on the
// page Add leads to, this once, taken whole by a click or a double click (base64's "+", "/" and "=" would end a
// word's selection there) or by its Copy button. That page asked for again (a reload, Back) says instead that it
// was shown once, and what to do; so does the page when the browser brings it back from its back/forward cache
// (islands/_client.ts hides the secret then and shows the sentence rendered hidden beside it).

import type { Context } from "hono";
import type { Destination, Webhook } from "../../webhooks/mod.ts";
import { Island } from "../components/Island.tsx";
import { Layout } from "../components/Layout.tsx";
import { type ConsoleEnv, type Deps, describeError, html, layoutFrame } from "../lib/context.ts";
import CopyButton from "../islands/CopyButton.tsx";
import { shownUrl } from "../lib/shown_url.ts";

/** The sentence shown where the secret was: it was shown once, and how to get a new one. */
export function SecretShownOnce({ hidden = false }: { hidden?: boolean }) {
  return (
    <p class="notice" role="note" id="forward-secret-gone" hidden={hidden}>
      A destination's signing secret is shown once, on the page right after{" "}
      <em>Add destination</em>, to the session that added it; it is not shown again. If you did not keep it, give the
      destination a new one: remove it and add it again.
    </p>
  );
}

/** The secret, with the URL (its user info masked) that it is for. */
export function AddedSecret({ added }: { added: Destination & { secret: string } }) {
  return (
    <>
      <section id="forward-added">
        <h2>Signing secret</h2>
        <p>
          Give this secret to the app at <code>{shownUrl(added.url)}</code>{" "}
          to verify the signatures. It is shown this once.
        </p>
        <p>
          <code id="forward-secret">{added.secret}</code>
        </p>
        <Island name="CopyButton" props={{ target: "forward-secret", label: "Copy the secret" }}>
          <CopyButton target="forward-secret" label="Copy the secret" />
        </Island>
      </section>
      <SecretShownOnce hidden />
    </>
  );
}

/** The secret of a destination just added, when the page around it cannot be shown (the KV failing). */
export function secretAlone(
  c: Context<ConsoleEnv>,
  deps: Deps,
  hook: Webhook,
  added: Destination & { secret: string },
  err: unknown,
): Response {
  return html(
    c,
    <Layout title={`Forward postbacks of ${hook.id}`} {...layoutFrame(c, deps)} error={describeError(err)}>
      <p>
        The destination is added; the rest of the page could not be shown.{" "}
        <a href={`/webhooks/${encodeURIComponent(hook.id)}/forward`}>Forward to</a>
      </p>
      <AddedSecret added={added} />
    </Layout>,
  );
}

/** The answer to an Add whose secret could not be kept for the page that shows it (the KV failing): nothing added. */
export function notAdded(c: Context<ConsoleEnv>, deps: Deps, hook: Webhook, err: unknown): Response {
  return html(
    c,
    <Layout
      title={`Forward postbacks of ${hook.id}`}
      {...layoutFrame(c, deps)}
      error={`No destination was added: its signing secret could not be kept for the page that shows it (${
        describeError(err)
      }). Try again.`}
    >
      <p>
        <a href={`/webhooks/${encodeURIComponent(hook.id)}/forward`}>Forward to</a>
      </p>
    </Layout>,
    500,
  );
}
