/**
 * The console's "Forward to" flow in Chromium (issue 45): from a sandbox
 * hook's page, add a destination (a test app on 127.0.0.1) and see its
 * secret once; Send test event and see the forward on the hook's page and
 * its attempt on the delivery's page, signed with that secret; disable the
 * destination (the next test event is not forwarded) and remove it. axe-core
 * finds no violation on these pages; at 390 px none scrolls sideways.
 * Screenshots at 1,280 and 390 px go to /tmp/shots-relay/.
 */

import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { browserTestOptions, type Page } from "../_chromium.ts";
import { axeViolations, clickAndWait, withHookPage } from "./_browser.ts";
import { startApp } from "../webhooks/relay/fixtures.ts";

const SHOTS = "/tmp/shots-relay";

/** Screenshots the page at 1,280 and 390 px, checks axe-core at both and that 390 px does not scroll sideways. */
async function look(page: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewport({ width, height: 900 });
    await page.screenshot({ path: `${SHOTS}/${name}_${width}.png`, fullPage: true });
    const [scroll, inner] = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
    assert.ok(scroll <= inner, `${name} scrolls sideways at ${width} px (${scroll} > ${inner})`);
    assert.deepEqual(await axeViolations(page), [], `${name} at ${width} px`);
  }
  await page.setViewport({ width: 1280, height: 900 });
}

const text = (page: Page, selector: string): Promise<string> => page.$eval(selector, (el) => el.textContent ?? "");

/**
 * The hook page's line on the test event's forward, once it has an outcome. The page waits up to 2 s for the relay
 * worker's attempt and then says "waiting": on a loaded machine the attempt may end later, so the page Send test
 * event leads to (`url`, its notice in the address) is loaded again until the line says more, for up to 20 s.
 */
async function testForwardLine(page: Page, url: string): Promise<string> {
  for (const end = Date.now() + 20_000;;) {
    const line = await text(page, "#test-forwards li");
    if (!/: waiting/.test(line) || Date.now() > end) return line;
    await new Promise((r) => setTimeout(r, 250));
    await page.goto(url);
  }
}

Deno.test({
  name: "Forward to in Chromium: add a destination, its secret once, a test event forwarded and shown, disable, remove",
  ...browserTestOptions,
  fn: async () => {
    await Deno.mkdir(SHOTS, { recursive: true });
    const app = startApp();
    try {
      await withHookPage({ relayWorker: true, axe: true }, async (page, { t, hookId }) => {
        await page.setViewport({ width: 1280, height: 900 });

        // The hook's page leads to Forward to.
        await page.goto(`${t.origin}/webhooks/${hookId}`);
        assert.match(await text(page, "#forward-summary"), /not forwarded anywhere yet/);
        await clickAndWait(page, "#forward-link");
        assert.equal(new URL(page.url()).pathname, `/webhooks/${hookId}/forward`);
        await look(page, "01_forward_empty");

        // Add a destination: its secret is shown in this answer only.
        await page.type("#forward-add input[name=url]", app.url);
        await clickAndWait(page, "#forward-add button[type=submit]");
        const secret = await text(page, "#forward-secret");
        assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
        assert.equal(await text(page, "#forward-destinations td code"), app.url);
        await look(page, "02_forward_added");
        await page.reload({ waitUntil: "load" }); // asks for the page again, not for the add
        assert.equal((await page.content()).includes(secret), false, "the secret is shown again on reload");
        assert.match(await text(page, "#forward-secret-gone"), /shown once/);
        assert.equal(await page.$(".error"), null);
        await page.goto(`${t.origin}/webhooks/${hookId}/forward`);
        assert.equal((await page.content()).includes(secret), false, "the secret is shown once");

        // Send test event: the hook's page says that it was forwarded, and how.
        await page.goto(`${t.origin}/webhooks/${hookId}`);
        await clickAndWait(page, "#send-test button[type=submit]");
        assert.match(await text(page, ".notice"), /The platform delivered the test event/);
        const line = await testForwardLine(page, `${t.origin}/webhooks/${hookId}?notice=triggered&answer=200`);
        assert.ok(line.startsWith(`Test event forwarded to ${app.url}: delivered, last attempt HTTP 200 in`), line);
        assert.match(await text(page, "#forward-summary"), /forwarded to 1 of 1 destination/);
        await look(page, "03_hook_after_test");
        assert.equal(app.received.length, 1);
        const got = app.received[0];
        new Webhook(secret).verify(got.body, {
          "webhook-id": got.id,
          "webhook-timestamp": got.timestamp,
          "webhook-signature": got.signature,
        });

        // The delivery's page shows the forward attempt.
        const href = await page.$eval("a[href^='/deliveries/q']", (a) => a.getAttribute("href")!);
        await page.goto(`${t.origin}${href}`);
        assert.equal(await text(page, `#delivery-forwards [data-entry="${got.id}"] .forward-state`), "Delivered");
        assert.equal(await text(page, "#delivery-forwards .forward-attempts td[data-label=Answer]"), "HTTP 200");
        assert.match(await text(page, "#delivery-forwards .forward-attempts td[data-label=Duration]"), / ms$/);
        assert.equal((await page.content()).includes(secret), false);
        await look(page, "04_delivery_forwarded");

        // Disable: the next test event is not forwarded.
        await page.goto(`${t.origin}/webhooks/${hookId}/forward`);
        await clickAndWait(page, "#forward-destinations form[action$='/enabled'] button");
        assert.match(await text(page, ".notice"), /The destination is disabled/);
        assert.equal(await text(page, "#forward-destinations tbody td:nth-child(3)"), "disabled");
        await look(page, "05_forward_disabled");
        await page.goto(`${t.origin}/webhooks/${hookId}`);
        await clickAndWait(page, "#send-test button[type=submit]");
        assert.match(await text(page, "#forward-summary"), /forwarded to 0 of 1 destination/);
        await new Promise((r) => setTimeout(r, 500));
        assert.equal(app.received.length, 1);

        // Remove it.
        await page.goto(`${t.origin}/webhooks/${hookId}/forward`);
        await clickAndWait(page, "#forward-destinations form[action$='/remove'] button");
        assert.match(await text(page, ".notice"), /The destination is removed/);
        assert.match(await text(page, "#forward-none"), /No destination yet/);
        await look(page, "06_forward_removed");
      });
    } finally {
      await app.close();
    }
  },
});
