// The register form, with a callback the browser takes as a URL but the platform refuses (not http or https), as a
// screen reader user meets it: the page that comes back has focus on its message, and the Callback URL field is
// marked invalid, described by that message, and keeps what was typed. The message says what is wrong without
// repeating the URL (it may carry a user's password or a token).

import assert from "node:assert/strict";
import { browserTestOptions } from "../_chromium.ts";
import { gotoHydrated, settled, withHookPage } from "./_browser.ts";

Deno.test({
  name: "a callback that is no http(s) URL marks the Callback URL field, described by the error, its text kept",
  ...browserTestOptions,
  fn: () =>
    withHookPage({}, async (page, { t }) => {
      const typed = "ftp://user:hunter2@app.example/in";
      await gotoHydrated(page, `${t.origin}/webhooks/new`);
      await page.click("#event-user_account");
      await page.type("#callback", typed);
      await Promise.all([
        page.waitForNavigation({ waitUntil: "load" }),
        page.click("form#register button[type=submit]"),
      ]);
      await settled(page);
      const seen = await page.evaluate(() => {
        const field = document.querySelector<HTMLInputElement>("#callback")!;
        const describedBy = field.getAttribute("aria-describedby");
        return {
          focused: document.activeElement?.id,
          invalid: field.getAttribute("aria-invalid"),
          describedBy: describedBy ? document.getElementById(describedBy)?.textContent : null,
          value: field.value,
        };
      });
      assert.equal(seen.focused, "page-error");
      assert.equal(seen.invalid, "true");
      assert.match(seen.describedBy ?? "", /callback/i);
      assert.doesNotMatch(seen.describedBy ?? "", /hunter2/);
      assert.equal(seen.value, typed);
    }),
});
