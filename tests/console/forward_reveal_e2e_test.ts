/**
 * Forward to's Add in Chromium: its answer shows the new destination's
 * secret with the notice focused, and then a reload sends no form again (the
 * browser asked nothing, no "already receives" refusal) and shows no secret
 * but a sentence saying it was shown once; Back to that page shows none
 * either.
 */

import assert from "node:assert/strict";
import { browserTestOptions, type Page } from "../_chromium.ts";
import { gotoHydrated, settled } from "./_browser.ts";
import { addThroughForm, formPosts, withForwardPage } from "./_forward_page.ts";

/** What the page shows once settled: the secret, the sentence that replaces it, an error, and what has focus. */
const state = async (page: Page) => {
  await settled(page);
  return await page.evaluate(() => {
    const visible = (selector: string) => {
      const el = document.querySelector<HTMLElement>(selector);
      return el && el.offsetParent !== null ? el.textContent?.trim() ?? "" : null; // JSON has no undefined
    };
    return {
      secret: visible("#forward-secret"),
      gone: visible("#forward-secret-gone"),
      error: visible("main .error"),
      focus: document.activeElement?.id || document.activeElement?.tagName.toLowerCase(),
      rows: document.querySelectorAll("#forward-destinations tr[data-destination]").length,
    };
  });
};

Deno.test({
  name: "Forward to in Chromium: reloading Add's answer sends nothing again and shows the secret no more",
  ...browserTestOptions,
  fn: async () => {
    await withForwardPage(async (page, { origin, hookId }) => {
      const posts = formPosts(page);
      await addThroughForm(page, { origin, hookId }, "https://app.example/in");
      const added = await state(page);
      assert.match(added.secret ?? "", /^whsec_/);
      assert.equal(added.gone, null);
      assert.equal(added.focus, "page-notice");
      assert.equal(posts.count(), 1);
      assert.ok(!page.url().includes(added.secret!), page.url());

      await page.reload({ waitUntil: "load" });
      const reloaded = await state(page);
      assert.equal(posts.count(), 1, "the reload sent the form again");
      assert.deepEqual({ ...reloaded, gone: reloaded.gone === null ? "none" : "said" }, {
        secret: null,
        gone: "said",
        error: null,
        focus: "body",
        rows: 1,
      });
      assert.ok(!(await page.content()).includes(added.secret!));

      // Away and Back: the page shows no secret.
      await gotoHydrated(page, `${origin}/webhooks`);
      await page.goBack({ waitUntil: "load" });
      assert.equal(new URL(page.url()).pathname, `/webhooks/${hookId}/forward`);
      assert.equal((await state(page)).secret, null, "Back showed the secret");
      assert.equal(posts.count(), 1);
    });
  },
});

Deno.test({
  name: "Forward to in Chromium: Back to Add's answer, straight after it, shows the secret no more",
  ...browserTestOptions,
  fn: async () => {
    await withForwardPage(async (page, { origin, hookId }) => {
      await addThroughForm(page, { origin, hookId }, "https://app.example/in");
      const secret = (await state(page)).secret ?? "";
      assert.match(secret, /^whsec_/);
      await gotoHydrated(page, `${origin}/webhooks`);
      await page.goBack({ waitUntil: "load" });
      const back = await state(page);
      assert.equal(back.secret, null, "Back showed the secret");
      assert.equal(back.error, null, `Back showed an error: ${back.error}`);
      assert.ok(!(await page.content()).includes(secret));
    });
  },
});
