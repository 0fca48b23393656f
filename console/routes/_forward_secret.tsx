// The signing secret of a destination just added to a hook's "Forward to" page (forwarding.tsx): shown on the
// answer to the add, this once, taken whole by a click or a double click (base64's "+", "/" and "=" would end a
// word's selection there) or by its Copy button.

import type { Destination } from "../../webhooks/mod.ts";
import { Island } from "../components/Island.tsx";
import CopyButton from "../islands/CopyButton.tsx";
import { shownUrl } from "../lib/shown_url.ts";

/** The secret, with the URL (its user info masked) that it is for. */
export function AddedSecret({ added }: { added: Destination & { secret: string } }) {
  return (
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
  );
}
