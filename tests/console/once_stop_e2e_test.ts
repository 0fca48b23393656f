/**
 * A `data-once` form whose submission the user stopped (the browser's Stop,
 * `Page.stopLoading` as Chromium's button sends it) is sent again at once
 * when submitted again: its guard is for a submission still on its way, and
 * the stopped one never will answer (islands/_client.ts). Without this, the
 * form refused every submission for 10 s.
 */

import assert from "node:assert/strict";
import type { HTTPRequest } from "puppeteer-core";
import { browserTestOptions } from "../_chromium.ts";
import { withForwardPage } from "./_forward_page.ts";

Deno.test({
  name: "A data-once form stopped by the user is sent again at once (Forward to's Add)",
  ...browserTestOptions,
  fn: async () => {
    await withForwardPage(async (page) => {
      await page.type("#forward-add input[name=url]", "https://app.example/hooks");
      // The form's POSTs are held here, as a slow answer would be; the first is never answered.
      const posts: HTTPRequest[] = [];
      let posted!: () => void;
      let next = new Promise<void>((resolve) => posted = resolve);
      await page.setRequestInterception(true);
      page.on("request", (request) => {
        if (request.method() === "POST" && request.isNavigationRequest()) {
          posts.push(request);
          posted();
          if (posts.length > 1) request.continue().catch(() => {});
        } else request.continue().catch(() => {});
      });
      await page.$eval("#forward-add", (form) => (form as HTMLFormElement).requestSubmit());
      await next;
      next = new Promise<void>((resolve) => posted = resolve);
      const cdp = await page.createCDPSession();
      await cdp.send("Page.stopLoading"); // the user pressed Stop: the page stays, its form unanswered
      await Promise.all([
        page.waitForNavigation({ waitUntil: "load", timeout: 8_000 }),
        page.$eval("#forward-add", (form) => (form as HTMLFormElement).requestSubmit()),
      ]);
      assert.equal(posts.length, 2, "the form was not sent again after Stop");
      assert.match(await page.$eval("#forward-secret", (el) => el.textContent ?? ""), /^whsec_/);
    });
  },
});
