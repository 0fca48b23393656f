/**
 * The live view in Chromium with the back/forward cache on (issue 24,
 * defect 1): a browser allows six HTTP/1.1 connections per host, so live
 * pages must neither keep their event stream open from the back/forward
 * cache nor hold one each per tab. After ten "Send test event" reloads and
 * with eight tabs on live pages, every page of the console still loads, and
 * a delivery still reaches every live tab. The hook's summary and its
 * times keep up with deliveries as they arrive (defect 9). A leading tab
 * that is frozen hands the lead on, and one that falls silent is worked around.
 */

import assert from "node:assert/strict";
import { type Browser, browserTestOptions, type Page, withBrowser } from "../_chromium.ts";
import { connectSandbox, registerHook, signIn, startConsole, trigger } from "./_helpers.ts";

/** A page load that hangs on a full connection pool takes 45-60 s; one that does not, well under a second. */
const HANG_BOUND_MS = 20_000;

type TestConsole = Awaited<ReturnType<typeof startConsole>>;

/** What a browser test on a registered hook gets: its console, the hook, a browser, and a way to sign a page in. */
interface HookBench {
  t: TestConsole;
  hookId: string;
  browser: Browser;
  /** Gives `page` the signed-in session's cookie. */
  signedIn(page: Page): Promise<void>;
}

/** A console with the sandbox connected and a hook registered, a signed-in client, and Chromium. */
async function withHookBrowser(fn: (bench: HookBench) => Promise<void>): Promise<void> {
  const t = await startConsole({ buildAssets: true });
  try {
    const client = await signIn(t.origin);
    await connectSandbox(client, t.origin);
    const hookId = await registerHook(client, t.origin);
    const cookie = { name: "cw_session", value: client.cookies.get("cw_session")!, url: t.origin };
    await withBrowser((browser) => fn({ t, hookId, browser, signedIn: (page) => page.setCookie(cookie) }));
  } finally {
    await t.close();
  }
}

/** A signed-in page on a registered hook's page (`prepare` runs before it loads), with its console. */
function onHookPage(
  fn: (page: Page, t: TestConsole, hookId: string) => Promise<void>,
  prepare: (page: Page) => Promise<void> = async () => {},
): Promise<void> {
  return withHookBrowser(async ({ t, hookId, browser, signedIn }) => {
    const page = await browser.newPage();
    await prepare(page);
    await signedIn(page);
    await page.goto(`${t.origin}/webhooks/${hookId}`, { waitUntil: "load", timeout: 90_000 });
    await fn(page, t, hookId);
  });
}

/** Holds `page`'s requests whose URL holds `part` until `release()`; `held` settles once the first is sent. */
async function holdRequest(page: Page, part: string): Promise<{ held: Promise<void>; release: () => void }> {
  await page.setRequestInterception(true);
  const { promise: held, resolve } = Promise.withResolvers<void>();
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  page.on("request", (request) => {
    if (!request.url().includes(part)) return void request.continue();
    resolve();
    released.then(() => request.continue());
  });
  return { held, release: () => release() };
}

async function timedGoto(page: Page, url: string): Promise<number> {
  const start = performance.now();
  await page.goto(url, { waitUntil: "load", timeout: 90_000 });
  return performance.now() - start;
}

Deno.test({
  name: "live pages: ten test-event reloads and eight live tabs leave every page loading, and live",
  ...browserTestOptions,
  fn: () =>
    withHookBrowser(async ({ t, hookId, browser, signedIn }) => {
      const hookPage = `${t.origin}/webhooks/${hookId}`;
      const args = await browser.process()?.spawnargs ?? [];
      assert.ok(!args.some((a) => /back-forward-cache|BackForwardCache/i.test(a)), args.join(" "));
      const first = await browser.newPage();
      await signedIn(first);
      const times: number[] = [];

      // Ten reloads through "Send test event": each leaves the old live page behind.
      times.push(await timedGoto(first, hookPage));
      for (let i = 0; i < 10; i++) {
        await first.waitForSelector("[data-island=DeliveriesLive][data-hydrated=true]");
        const start = performance.now();
        await Promise.all([
          first.waitForNavigation({ waitUntil: "load", timeout: 90_000 }),
          first.click("#send-test button[type=submit]"),
        ]);
        times.push(performance.now() - start);
      }
      console.log(`Test-event reloads (ms): ${times.map((ms) => ms.toFixed(0)).join(", ")}`);
      assert.deepEqual(times.filter((ms) => ms > HANG_BOUND_MS), [], "a reload hung");

      // The back/forward cache is on: Back restores the previous page from it, and it is live again. A page
      // may be refused the cache now and then (a request in flight as it is left): it is tried up to 3 times.
      const cdp = await first.createCDPSession();
      await cdp.send("Page.enable");
      const notCached: string[] = [];
      cdp.on("Page.backForwardCacheNotUsed", (e) => notCached.push(JSON.stringify(e.notRestoredExplanations)));
      let restored = false;
      for (let attempt = 0; attempt < 3 && !restored; attempt++) {
        await first.waitForSelector("[data-island=DeliveriesLive][data-hydrated=true]");
        await first.evaluate(() => {
          addEventListener("pageshow", (e) => {
            if (e.persisted) document.body.dataset.restored = "yes";
          });
        });
        times.push(await timedGoto(first, `${t.origin}/deliveries`));
        await first.goBack({ waitUntil: "load", timeout: 90_000 });
        restored = await first.evaluate(() => document.body.dataset.restored === "yes");
      }
      assert.ok(restored, `never restored from the cache: ${notCached.join("; ")}`);
      if (notCached.length) console.log(`Not restored at first: ${notCached.join("; ")}`);
      await first.waitForFunction(() => document.querySelector("#live-status")?.textContent === "live", {
        timeout: 30_000,
      });

      // Eight tabs on live pages.
      const tabs: Page[] = [first];
      for (let i = 0; i < 8; i++) {
        const tab = await browser.newPage();
        tabs.push(tab);
        times.push(await timedGoto(tab, i % 2 ? `${t.origin}/deliveries` : hookPage));
        await tab.waitForSelector("[data-island=DeliveriesLive][data-hydrated=true]");
      }
      // Any page still loads, in a tab of its own and in the first one.
      const other = await browser.newPage();
      times.push(await timedGoto(other, `${t.origin}/webhooks`));
      times.push(await timedGoto(first, `${t.origin}/communities`));
      await other.close();
      console.log(`Page loads (ms): ${times.map((ms) => ms.toFixed(0)).join(", ")}`);
      const slow = times.filter((ms) => ms > HANG_BOUND_MS);
      assert.deepEqual(slow, [], `loads over ${HANG_BOUND_MS} ms: ${slow.join(", ")}`);

      // A new delivery still reaches every live tab (the first is back on a live page).
      await first.goto(hookPage, { waitUntil: "load", timeout: 90_000 });
      await first.waitForSelector("[data-island=DeliveriesLive][data-hydrated=true]");
      const before = await t.app.deliveries.list({ hookId, limit: 1 });
      assert.deepEqual(await trigger(t.origin), [200]);
      const [newest] = await t.app.deliveries.list({ hookId, limit: 1 });
      assert.notEqual(newest.id, before[0]?.id);
      // One stream for all of them: exactly one tab leads.
      const roles = () => Promise.all(tabs.map((tab) => tab.evaluate(() => document.documentElement.dataset.liveRole)));
      for (let waited = 0; (await roles()).filter((r) => r === "leader").length !== 1; waited += 100) {
        assert.ok(waited < 30_000, `tabs' roles: ${(await roles()).join(", ")}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const missed: string[] = [];
      for (const [i, tab] of tabs.entries()) {
        await tab.waitForSelector(`[id="delivery-${newest.id}"]`, { timeout: 30_000 }).catch(async () => {
          const status = await tab.$eval("#live-status", (el) => el.textContent).catch(() => "none");
          missed.push(`tab ${i} (${tab.url()}): updates ${status}`);
        });
      }
      assert.deepEqual(missed, [], "every live tab shows the new delivery");
    }),
});

Deno.test({
  name: "the hook's summary and its last time keep up with deliveries as they arrive",
  ...browserTestOptions,
  fn: () =>
    onHookPage(async (page, t, hookId) => {
      await page.waitForSelector("#live-status.live", { timeout: 30_000 });
      assert.match(await page.$eval("#delivery-summary", (el) => el.textContent ?? ""), /^Last 24 hours: 0 accepted/);
      for (let n = 1; n <= 2; n++) {
        assert.deepEqual(await trigger(t.origin), [200]);
        const [newest] = await t.app.deliveries.list({ hookId, limit: 1 });
        await page.waitForFunction(
          (count: number, iso: string) => {
            const summary = document.querySelector("#delivery-summary");
            const time = summary?.querySelector("time");
            return summary?.textContent?.startsWith(`Last 24 hours: ${count} accepted, 0 rejected.`) &&
              time?.dateTime === iso && time.textContent !== iso && /\(.+\)/.test(time.textContent ?? "");
          },
          { timeout: 30_000 },
          n,
          newest.receivedAt,
        );
        await page.waitForFunction(
          (count: number) =>
            new RegExp(`Success rate: 100% accepted\\. .*\\(of ${count} postbacks?\\)`).test(
              document.querySelector("#delivery-health")?.textContent ?? "",
            ),
          { timeout: 30_000 },
          n,
        );
      }
    }),
});

Deno.test({
  name: "without Web Locks (a page not from a secure origin) a live page polls, and still shows new deliveries",
  ...browserTestOptions,
  fn: () =>
    onHookPage(async (page, t, hookId) => {
      await page.waitForFunction(
        () => document.querySelector("#live-status")?.textContent === "checking every few seconds",
        { timeout: 30_000 },
      );
      assert.deepEqual(await trigger(t.origin), [200]);
      const [newest] = await t.app.deliveries.list({ hookId, limit: 1 });
      await page.waitForSelector(`[id="delivery-${newest.id}"]`, { timeout: 30_000 });
    }, async (page) => {
      await page.evaluateOnNewDocument(() => {
        Object.defineProperty(Navigator.prototype, "locks", { get: () => undefined });
      });
    }),
});

Deno.test({
  name: "a webhook's page keeps its latest 10 deliveries as more arrive live, not every one",
  ...browserTestOptions,
  fn: () =>
    onHookPage(async (page, t, hookId) => {
      await page.waitForFunction(() => document.querySelector("#live-status")?.textContent === "live", {
        timeout: 30_000,
      });
      const item = (n: number) => ({
        webhook: "https://x.example/1",
        activity: { verb: "jive:created", title: `#${n}` },
      });
      for (let n = 0; n < 14; n++) await t.app.deliveries.add(hookId, [item(n)]);
      const [newest] = await t.app.deliveries.list({ hookId, limit: 1 });
      await page.waitForSelector(`[id="delivery-${newest.id}"]`, { timeout: 30_000 });
      const rows = await page.evaluate(() => document.querySelectorAll("tr.delivery").length);
      assert.equal(rows, 10);
    }),
});

Deno.test({
  name: "a delivery that arrives between a follower tab's render and its subscription still shows there",
  ...browserTestOptions,
  fn: () =>
    withHookBrowser(async ({ t, hookId, browser, signedIn }) => {
      const hookPage = `${t.origin}/webhooks/${hookId}`;
      // A leading tab, live on the log.
      const leader = await browser.newPage();
      await signedIn(leader);
      await leader.goto(`${t.origin}/deliveries`, { waitUntil: "load", timeout: 90_000 });
      await leader.waitForSelector("#live-status.live", { timeout: 30_000 });
      // A second tab renders the hook's page, but its islands wait until the delivery went past.
      const late = await browser.newPage();
      const { held, release } = await holdRequest(late, "islands.js");
      const loading = late.goto(hookPage, { waitUntil: "load", timeout: 90_000 });
      await held;
      assert.deepEqual(await trigger(t.origin), [200]);
      const [newest] = await t.app.deliveries.list({ hookId, limit: 1 });
      await leader.waitForSelector(`[id="delivery-${newest.id}"]`, { timeout: 30_000 }); // passed on already
      assert.equal(await late.$(`[id="delivery-${newest.id}"]`), null, "not in the page as rendered");
      release();
      await loading;
      await late.waitForFunction(() => document.documentElement.dataset.liveRole === "follower", { timeout: 30_000 });
      // 15 s: one look and a render, which a loaded machine's Chromium has taken past 5 s; and below the 25 s after
      // which a follower polls by itself, so the row still shows only if the look as it subscribed brought it.
      await late.waitForSelector(`[id="delivery-${newest.id}"]`, { timeout: 15_000 });
    }),
});

Deno.test({
  name: "a delivery that arrives while a leading tab's stream is still opening still shows there",
  ...browserTestOptions,
  fn: () =>
    withHookBrowser(async ({ t, hookId, browser, signedIn }) => {
      // The leader's stream request is held: the delivery is stored before the server reads where the stream starts.
      const page = await browser.newPage();
      const { held, release } = await holdRequest(page, "/deliveries/events");
      let looking = 0;
      const isLook = (request: { url(): string }) => request.url().includes("/deliveries.json");
      page.on("request", (request) => void (isLook(request) && looking++));
      for (const event of ["requestfinished", "requestfailed"] as const) {
        page.on(event, (request) => void (isLook(request) && looking--));
      }
      await signedIn(page);
      await page.goto(`${t.origin}/webhooks/${hookId}`, { waitUntil: "load", timeout: 90_000 });
      await held;
      // The page's own looks (as it subscribed, as it took the lead) are answered before the delivery is stored.
      for (let quiet = 0; quiet < 5; quiet = looking === 0 ? quiet + 1 : 0) {
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(await trigger(t.origin), [200]);
      const [newest] = await t.app.deliveries.list({ hookId, limit: 1 });
      release();
      await page.waitForSelector("#live-status.live", { timeout: 30_000 });
      // Before: the stream started after the delivery and the page's last look came before it, so it never showed
      // (a live page does not poll).
      // (15 s, not 10: the stream's ready and a look, with Chromium sharing a loaded machine; a live page does not
      // poll, so a longer wait still fails without the look.)
      await page.waitForSelector(`[id="delivery-${newest.id}"]`, { timeout: 15_000 });
    }),
});

/** Three tabs on the deliveries page, once one of them leads: the leader, and the others. */
async function threeLiveTabs(bench: HookBench): Promise<{ leader: Page; followers: Page[] }> {
  const tabs: Page[] = [];
  for (let i = 0; i < 3; i++) {
    const tab = await bench.browser.newPage();
    await bench.signedIn(tab);
    await tab.goto(`${bench.t.origin}/deliveries`, { waitUntil: "load", timeout: 90_000 });
    tabs.push(tab);
  }
  for (let waited = 0;; waited += 100) {
    const roles = await Promise.all(tabs.map((tab) => tab.evaluate(() => document.documentElement.dataset.liveRole)));
    if (roles.filter((r) => r === "leader").length === 1 && roles.filter((r) => r === "follower").length === 2) {
      const leader = tabs[roles.indexOf("leader")];
      return { leader, followers: tabs.filter((tab) => tab !== leader) };
    }
    assert.ok(waited < 30_000, `tabs' roles: ${roles.join(", ")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

Deno.test({
  name: "a leading tab the browser freezes (a background tab on a phone) hands the lead on: the others stay live",
  ...browserTestOptions,
  fn: () =>
    withHookBrowser(async (bench) => {
      const { leader, followers } = await threeLiveTabs(bench);
      const cdp = await leader.createCDPSession();
      await cdp.send("Page.setWebLifecycleState", { state: "frozen" });
      // Before: the frozen tab kept the lock and the stream, and the others said "live" and showed nothing new.
      // (30 s: a hand-over takes well under a second, but a fully parallel test run once took Chromium past 15 s;
      // a tab that kept the lock would never hand it on, so the wait still fails that way.) Polled on a timer: only
      // the newest tab is visible, and a hidden tab runs no animation frames, so puppeteer's default ("raf") would
      // never look again in a hidden follower that took the lead after its first look.
      await Promise.any(followers.map((tab) =>
        tab.waitForFunction(() => document.documentElement.dataset.liveRole === "leader", {
          timeout: 30_000,
          polling: 100,
        })
      ));
      assert.deepEqual(await trigger(bench.t.origin), [200]);
      const [newest] = await bench.t.app.deliveries.list({ hookId: bench.hookId, limit: 1 });
      for (const tab of followers) {
        await tab.waitForSelector(`[id="delivery-${newest.id}"]`, { timeout: 15_000 });
      }
      // Past the 25 s a follower waits for a sign of life: the new leader passes the stream's pings on, so the
      // other tab stays live (a leader's own timer, throttled in a background tab, could not be relied on).
      await new Promise((resolve) =>
        setTimeout(resolve, 30_000)
      );
      for (const tab of followers) {
        assert.equal(await tab.$eval("#live-status", (el) => el.textContent), "live");
      }
      await cdp.send("Page.setWebLifecycleState", { state: "active" });
      await leader.waitForSelector(`[id="delivery-${newest.id}"]`, { timeout: 15_000 }); // what it missed, on resume
    }),
});

Deno.test({
  name: "followers of a leader that falls silent poll by themselves, and say so, until it is heard again",
  ...browserTestOptions,
  fn: () =>
    withHookBrowser(async (bench) => {
      const { leader, followers } = await threeLiveTabs(bench);
      // The leader keeps its lock and its stream but passes nothing on (a tab stopped without a freeze event).
      await leader.evaluate(() => {
        BroadcastChannel.prototype.postMessage = () => {};
      });
      assert.deepEqual(await trigger(bench.t.origin), [200]);
      const [newest] = await bench.t.app.deliveries.list({ hookId: bench.hookId, limit: 1 });
      for (const tab of followers) {
        await tab.waitForSelector(`[id="delivery-${newest.id}"]`, { timeout: 40_000 });
        assert.equal(await tab.$eval("#live-status", (el) => el.className.includes("live")), false);
      }
    }),
});
