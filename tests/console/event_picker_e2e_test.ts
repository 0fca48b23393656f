/**
 * The events checklist in Chromium, once its island runs: the kind not
 * chosen is greyed out (the server renders none greyed out, for browsers
 * without JavaScript: event_picker_test.ts), and freed when the chosen kind
 * is unticked.
 */

import assert from "node:assert/strict";
import { browserTestOptions } from "../_chromium.ts";
import { gotoHydrated, withHookPage } from "./_browser.ts";

const disabled = (id: string) => `document.querySelector("#${id}").disabled`;

Deno.test({
  name: "once the events island runs it greys out the kind not chosen, and frees it when the chosen kind is unticked",
  ...browserTestOptions,
  fn: () =>
    withHookPage({ connect: false }, async (page, { t, hookId }) => {
      await gotoHydrated(page, `${t.origin}/webhooks/${hookId}`);
      await page.waitForFunction(
        () =>
          (document.querySelector("#event-user_account") as HTMLInputElement).disabled &&
          document.querySelector("#system-events")?.classList.contains("muted"),
        { timeout: 10_000 },
      );
      assert.equal(await page.evaluate(disabled("event-document")), false);
      await page.click("#event-document");
      await page.waitForFunction(
        () => !(document.querySelector("#event-user_account") as HTMLInputElement).disabled,
        {
          timeout: 10_000,
        },
      );
      await page.click("#event-user_account");
      await page.waitForFunction(() => (document.querySelector("#object") as HTMLInputElement).disabled, {
        timeout: 10_000,
      });
    }),
});
