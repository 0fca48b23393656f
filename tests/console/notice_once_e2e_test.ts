// A notice says what an action just did, once: the page the action leads to shows it (with focus on it), and then
// neither a reload nor Back to that page shows it again or moves focus to it, as if the action had just happened
// again. The address the page ends at is one a bookmark or a shared link can keep: it names no notice.

import assert from "node:assert/strict";
import { browserTestOptions, type Page } from "../_chromium.ts";
import { clickAndWait, gotoHydrated, settled } from "./_browser.ts";
import { addThroughForm, withForwardPage } from "./_forward_page.ts";

/** Once the page has settled: the notice shown (its text), or "none"; and what has focus. */
async function shown(page: Page): Promise<{ notice: string; focus: string | undefined }> {
  await settled(page);
  return await page.evaluate(() => {
    const notice = document.querySelector<HTMLElement>("main .notice[role=status]");
    const text = notice && notice.offsetParent !== null ? notice.textContent?.trim() : undefined;
    const el = document.activeElement;
    return { notice: text ?? "none", focus: el?.matches("[role=status]") ? "notice" : el?.tagName.toLowerCase() };
  });
}

/** Waits for the islands of the page now shown (a page from the history runs no load of its own). */
const hydrated = (page: Page) =>
  page.waitForFunction(() =>
    [...document.querySelectorAll<HTMLElement>("[data-island]")].every((el) => el.dataset.hydrated)
  );

Deno.test({
  name: "an action's notice shows once: not again on reload, on Back, or at the address it leaves",
  ...browserTestOptions,
  fn: async () => {
    await withForwardPage(async (page, { origin, hookId }) => {
      await addThroughForm(page, { origin, hookId }, "https://app.example/in");
      assert.equal((await shown(page)).notice, "The destination is added.");
      // Add leads to its page, its secret shown once: a reload asks for that page again, which shows no secret.
      await page.reload({ waitUntil: "load" });
      assert.equal(await page.$("#forward-secret"), null, "the secret shown again on reload");
      assert.equal((await shown(page)).notice, "none");

      // Disable redirects to the page with its notice.
      await clickAndWait(page, "#forward-destinations button[type=submit]");
      await hydrated(page);
      const first = await shown(page);
      assert.match(first.notice, /^The destination is disabled/);
      assert.equal(first.focus, "notice");
      assert.equal(new URL(page.url()).searchParams.has("notice"), false, `the address keeps it: ${page.url()}`);

      // Reload: the page as it is, no notice, nothing focused.
      await page.reload({ waitUntil: "load" });
      await hydrated(page);
      assert.deepEqual(await shown(page), { notice: "none", focus: "body" }, "after a reload");

      // The notice again (enable), then away and Back: not shown again.
      await clickAndWait(page, "#forward-destinations button[type=submit]");
      await hydrated(page);
      assert.match((await shown(page)).notice, /^The destination is enabled/);
      await gotoHydrated(page, `${origin}/webhooks`);
      await page.goBack({ waitUntil: "load" });
      await hydrated(page);
      assert.equal(new URL(page.url()).pathname, `/webhooks/${hookId}/forward`);
      assert.deepEqual(await shown(page), { notice: "none", focus: "body" }, "after Back");

      // Forward, then Back again: still none.
      await page.goForward({ waitUntil: "load" });
      await page.goBack({ waitUntil: "load" });
      await hydrated(page);
      assert.deepEqual(await shown(page), { notice: "none", focus: "body" }, "after Forward and Back");

      // The address a link shares names no notice: opened, it shows none.
      await gotoHydrated(page, page.url());
      assert.deepEqual(await shown(page), { notice: "none", focus: "body" }, "at the address shared");
    });
  },
});
