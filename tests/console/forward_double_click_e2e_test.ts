/**
 * Forward to's Add in Chromium, sent twice at once (a double click): the
 * page the browser shows is the first answer, with the new destination's
 * secret, not the second one's "already receives" (which would leave the
 * user without the secret, shown in that first answer only). Forms marked
 * `data-once` are sent once until their answer comes (islands/_client.ts).
 */

import assert from "node:assert/strict";
import { browserTestOptions } from "../_chromium.ts";
import { formPosts, withForwardPage } from "./_forward_page.ts";

Deno.test({
  name: "Forward to in Chromium: Add sent twice at once shows the first answer, with the secret, and adds one",
  ...browserTestOptions,
  fn: async () => {
    await withForwardPage(async (page, { origin, hookId }) => {
      const posts = formPosts(page);
      await page.type("#forward-add input[name=url]", "https://app.example/hooks");
      // Two submissions a moment apart, as a double click makes them: the first one's request is on its way when
      // the second would replace its navigation (and its answer, the only one with the secret, is never shown).
      await Promise.all([
        page.waitForNavigation({ waitUntil: "load" }),
        page.$eval("#forward-add", async (form) => {
          (form as HTMLFormElement).requestSubmit();
          await new Promise((resolve) => setTimeout(resolve, 2));
          (form as HTMLFormElement).requestSubmit();
        }).catch(() => {}), // the first answer came first: the page is gone
      ]);
      assert.equal(posts.count(), 1, "the form was sent twice");
      const secret = await page.$eval("#forward-secret", (el) => el.textContent ?? "");
      assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
      assert.equal((await page.$$("#forward-destinations tr[data-destination]")).length, 1);

      // A submission that another handler of the page cancelled was not sent: the next one goes.
      await page.goto(`${origin}/webhooks/${hookId}/forward`);
      await page.type("#forward-add input[name=url]", "https://app.example/other");
      await page.$eval("#forward-add", (form) => {
        form.addEventListener("submit", (e) => e.preventDefault(), { once: true });
        (form as HTMLFormElement).requestSubmit();
      });
      await Promise.all([
        page.waitForNavigation({ waitUntil: "load", timeout: 5_000 }),
        page.$eval("#forward-add", (form) => (form as HTMLFormElement).requestSubmit()),
      ]);
      assert.equal((await page.$$("#forward-destinations tr[data-destination]")).length, 2);

      // Sent again once its answer came (Reload, a second attempt): refused as before, the secret not shown again.
      await page.goto(`${origin}/webhooks/${hookId}/forward`);
      await page.type("#forward-add input[name=url]", "https://app.example/hooks");
      await Promise.all([
        page.waitForNavigation({ waitUntil: "load" }),
        page.$eval("#forward-add", (form) => (form as HTMLFormElement).requestSubmit()),
      ]);
      assert.match(await page.$eval(".error", (el) => el.textContent ?? ""), /already receives this hook/);
      assert.equal((await page.content()).includes(secret), false);
    });
  },
});
