import assert from "node:assert/strict";
import { browserTestOptions, CHROMIUM_MISSING_MESSAGE, launchChromium, withBrowser, withPage } from "./_chromium.ts";

Deno.test({
  name: "withBrowser() runs a page in Chromium and removes its profile",
  ...browserTestOptions,
  fn: async () => {
    const title = await withBrowser((browser) =>
      withPage(browser, async (page) => {
        await page.setContent("<title>ok</title><p>x</p>");
        return await page.title();
      })
    );
    assert.equal(title, "ok");
  },
});

Deno.test("launchChromium() names the install command when Chromium is missing", async () => {
  await assert.rejects(
    () => launchChromium({ executablePath: "/nonexistent/chromium" }),
    (err: Error) =>
      err.message ===
        CHROMIUM_MISSING_MESSAGE.replace(
          "/usr/bin/chromium",
          "/nonexistent/chromium",
        ) &&
      err.message.includes("apt-get install -y chromium") &&
      err.message.includes("BROWSER_TESTS=skip"),
  );
});
