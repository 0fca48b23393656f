/**
 * Issue 44's points in Chromium: the event catalog, the rate limits beside a
 * hook and its community, a delivery's response and Redeliver (of an
 * accepted delivery and of a platform-side failure), and hooks named in the
 * deliveries list. Each page is screenshotted at 1,280 and 390 px into
 * /tmp/shots-portal/ (or SHOTS_DIR), checked with axe-core (WCAG 2 A and
 * AA) at both widths, and must not scroll sideways at 390 px.
 */

import assert from "node:assert/strict";
import { browserTestOptions, withBrowser } from "../_chromium.ts";
import { connectSandbox, registerHook, signIn, startConsole, trigger } from "./_helpers.ts";
import { axeViolations, signedInPage } from "./_browser.ts";

Deno.test({
  name: "issue 44's pages in Chromium: catalog, limits, response, Redeliver, hook names; axe-clean, no sideways scroll",
  ...browserTestOptions,
  fn: async () => {
    let shots = "/tmp/shots-portal";
    try {
      shots = Deno.env.get("SHOTS_DIR") ?? shots;
    } catch {
      // no --allow-env: the default folder
    }
    await Deno.mkdir(shots, { recursive: true });
    console.log(`Screenshots: ${shots}`);
    const failing = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen() {} },
      () => new Response("maintenance until 10:00", { status: 503, headers: { "retry-after": "600" } }),
    );
    const t = await startConsole({
      buildAssets: true,
      rateLimits: {
        signin: null,
        rejections: null,
        receiver: { limit: 6000, windowMs: 60_000 },
        sandbox: { limit: 60, windowMs: 60_000 },
        forms: { limit: 120, windowMs: 60_000 },
      },
    });
    try {
      const client = await signIn(t.origin);
      await connectSandbox(client, t.origin);
      const ours = await registerHook(client, t.origin, { events: ["document", "discussion"] });
      const elsewhere = await registerHook(client, t.origin, {
        callback: `http://127.0.0.1:${failing.addr.port}/in`,
        events: ["idea"],
      });
      const platformOf = async (id: string) => String((await t.app.webhooks.findByID(id))!.entity.id);
      assert.deepEqual(await trigger(t.origin, { webhookId: await platformOf(ours) }), [200]);
      assert.deepEqual(await trigger(t.origin, { webhookId: await platformOf(elsewhere) }), [503]);
      const [accepted] = (await t.app.deliveries.page({ hookId: ours })).values;
      const [failure] = (await t.app.deliveries.page({ hookId: elsewhere })).values;

      await withBrowser(async (browser) => {
        const page = await signedInPage(browser, client, t.origin, { axe: true });

        // Redeliver the platform-side failure from its page: the platform sends it again, and it fails again.
        await page.setViewport({ width: 1280, height: 900 });
        await page.goto(`${t.origin}/deliveries/${failure.id}`);
        assert.match(
          await page.$eval("#response-status", (el) => el.textContent ?? ""),
          /The callback answered\s+503 Service Unavailable/,
        );
        await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#redeliver button")]);
        assert.match(await page.$eval(".notice", (el) => el.textContent ?? ""), /failed again/);
        assert.equal((await t.app.deliveries.page({ hookId: elsewhere })).values.length, 2);

        const pages = [
          ["events", "/events"],
          ["hook", `/webhooks/${ours}`],
          ["hook-elsewhere", `/webhooks/${elsewhere}`],
          ["community", "/communities/sandbox-tenant"],
          ["deliveries", "/deliveries"],
          ["delivery-accepted", `/deliveries/${accepted.id}`],
          ["delivery-failure", `/deliveries/${failure.id}`],
          ["register", "/webhooks/new"],
        ];
        const problems: string[] = [];
        for (const [name, path] of pages) {
          for (const width of [1280, 390]) {
            await page.setViewport({ width, height: 900 });
            await page.goto(`${t.origin}${path}`, { waitUntil: "load" });
            await page.screenshot({ path: `${shots}/${name}_${width}.png`, fullPage: true });
            const [scroll, inner] = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
            if (scroll > inner) problems.push(`${path} at ${width} px: ${scroll} px wide`);
            problems.push(...(await axeViolations(page)).map((v) => `${path} at ${width} px: ${v}`));
          }
        }
        assert.deepEqual(problems, []);

        // What the pages show, as a reader sees it.
        await page.setViewport({ width: 390, height: 900 });
        await page.goto(`${t.origin}/deliveries`);
        const cell = await page.$eval(
          `[id="delivery-${accepted.id}"] td[data-label=Webhook]`,
          (el) => (el as HTMLElement).innerText,
        );
        assert.match(cell, new RegExp(`document, discussion · Sandbox\\s+${ours}`));
        await page.goto(`${t.origin}/webhooks/${ours}`);
        assert.match(
          await page.$eval("#limit-receiver", (el) => (el as HTMLElement).innerText),
          /6,000 a minute per community \(tenant sandbox-tenant\).*\d[\d,]* left/s, // a minute's window: the count may have started again
        );
      });
    } finally {
      await t.close();
      await failing.shutdown();
    }
  },
});
