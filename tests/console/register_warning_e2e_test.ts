// Registering a hook whose callback a platform on the internet cannot reach, as a screen reader user meets it: focus
// is on the notice "The webhook is registered.", which is all that is read out unless the warning below it is tied to
// it. The notice is described by the warning, so that both are said at once.

import assert from "node:assert/strict";
import { browserTestOptions } from "../_chromium.ts";
import { gotoHydrated, settled, withHookPage } from "./_browser.ts";

Deno.test({
  name: "after registering a callback on a private address, the focused notice is described by the warning",
  ...browserTestOptions,
  fn: () =>
    withHookPage({}, async (page, { t }) => {
      await gotoHydrated(page, `${t.origin}/webhooks/new`);
      await page.click("#event-user_account");
      await page.type("#callback", "http://127.0.0.1:9/in");
      await Promise.all([
        page.waitForNavigation({ waitUntil: "load" }),
        page.click("form#register button[type=submit]"),
      ]);
      await settled(page);
      const seen = await page.evaluate(() => {
        const el = document.activeElement!;
        const ids = (el.getAttribute("aria-describedby") ?? "").split(/\s+/).filter(Boolean);
        return {
          focused: el.textContent,
          description: ids.map((id) => document.getElementById(id)?.textContent ?? `(no #${id})`).join(" "),
        };
      });
      assert.equal(seen.focused, "The webhook is registered.");
      assert.match(seen.description, /^Warning: the callback is on an address a platform on the internet cannot reach/);
    }),
});
