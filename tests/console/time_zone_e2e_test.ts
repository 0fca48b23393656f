// A time on a page names its time zone: the console shows each time in the reader's local time, and a reader in
// Paris read "11/29/2026, 4:29:31 PM" with nothing to say it was not UTC (the filters beside it say "From (UTC)"), nor
// could a log be matched against a server's. Both ways a time is shown are checked: a delivery's page (the bundle
// rewrites its <time>) and the deliveries list (an island renders LocalTime).

import assert from "node:assert/strict";
import { browserTestOptions } from "../_chromium.ts";
import { trigger } from "./_helpers.ts";
import { gotoHydrated, withHookPage } from "./_browser.ts";

Deno.test({
  name: "a time on a page, shown in the reader's time zone, names that zone",
  ...browserTestOptions,
  fn: () =>
    withHookPage({}, async (page, { t, hookId, platformId }) => {
      assert.deepEqual(await trigger(t.origin, { webhookId: await platformId() }), [200]);
      const [delivery] = (await t.app.deliveries.page({ hookId })).values;
      await page.emulateTimezone("Europe/Paris");
      await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
      for (const path of [`/deliveries/${delivery.id}`, "/deliveries"]) {
        await gotoHydrated(page, `${t.origin}${path}`);
        const times = await page.$$eval("main time[data-local]", (els) => els.map((el) => el.textContent ?? ""));
        assert.ok(times.length > 0, path);
        for (const text of times) assert.match(text, /\b(GMT\+1|CET)\b.* \(/, `${path}: ${text}`);
      }
    }),
});
