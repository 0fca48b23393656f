/**
 * The live view in Chromium across tabs that share one event stream: a
 * delivery that arrives while a follower subscribes or while the leader's
 * stream opens still shows; a leading tab that is frozen hands the lead on,
 * and one that falls silent is worked around by its followers' polling.
 */

import assert from "node:assert/strict";
import { browserTestOptions, type Page } from "../_chromium.ts";
import { trigger } from "./_helpers.ts";
import { type HookBench, withHookBrowser } from "./_hook_browser.ts";

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

/** A leading tab the browser freezes (a background tab on a phone) hands the lead on: the others stay live. */
async function frozenLeader(bench: HookBench): Promise<void> {
  const { leader, followers } = await threeLiveTabs(bench);
  const cdp = await leader.createCDPSession();
  await cdp.send("Page.setWebLifecycleState", { state: "frozen" });
  // Before: the frozen tab kept the lock and the stream, and the others said "live" and showed nothing new.
  // (30 s: a hand-over takes well under a second, but a fully parallel test run once took Chromium past 15 s;
  // a tab that kept the lock would never hand it on, so the wait still fails that way.) Polled on a timer: only
  // the newest tab is visible, and a hidden tab runs no animation frames, so puppeteer's default ("raf") would
  // never look again in a hidden follower that took the lead after its first look.
  await Promise.any(
    followers.map((tab) =>
      tab.waitForFunction(() => document.documentElement.dataset.liveRole === "leader", {
        timeout: 30_000,
        polling: 100,
      })
    ),
  );
  assert.deepEqual(await trigger(bench.t.origin), [200]);
  const [newest] = await bench.t.app.deliveries.list({ hookId: bench.hookId, limit: 1 });
  for (const tab of followers) {
    await tab.waitForSelector(`[id="delivery-${newest.id}"]`, { timeout: 15_000 });
  }
  // Past the 25 s a follower waits for a sign of life: the new leader passes the stream's pings on, so the
  // other tab stays live (a leader's own timer, throttled in a background tab, could not be relied on).
  await new Promise((resolve) => setTimeout(resolve, 30_000));
  for (const tab of followers) {
    assert.equal(await tab.$eval("#live-status", (el) => el.textContent), "live");
  }
  await cdp.send("Page.setWebLifecycleState", { state: "active" });
  await leader.waitForSelector(`[id="delivery-${newest.id}"]`, { timeout: 15_000 }); // what it missed, on resume
}

/** Followers of a leader that falls silent poll by themselves, and say so, until it is heard again. */
async function silentLeader(bench: HookBench): Promise<void> {
  const { leader, followers } = await threeLiveTabs(bench);
  // The leader keeps its lock and its stream but passes nothing on (a tab stopped without a freeze event).
  await leader.evaluate(() => {
    BroadcastChannel.prototype.postMessage = () => {};
  });
  // Waited for as a condition, not a time: a follower says it polls at its first check (every 5 s) after 25 s
  // of silence, which is 30 s after the tabs last heard the leader as they opened; bounded at 90 s for a loaded
  // machine, a follower that never polled still fails. Polled on a timer: hidden tabs run no animation frames.
  for (const tab of followers) {
    await tab.waitForFunction(() => document.getElementById("live-status")?.dataset.state === "polling", {
      timeout: 90_000,
      polling: 100,
    });
  }
  // The delivery comes once they poll, so only their polls can show it: no look a tab asked for before the
  // leader fell silent reaches the server after it (a follower could show it then while it still said "live").
  assert.deepEqual(await trigger(bench.t.origin), [200]);
  const [newest] = await bench.t.app.deliveries.list({ hookId: bench.hookId, limit: 1 });
  for (const tab of followers) {
    // 30 s: the next poll (5 s), one look and a render in a hidden tab on a loaded machine.
    await tab.waitForSelector(`[id="delivery-${newest.id}"]`, { timeout: 30_000 });
    assert.equal(await tab.$eval("#live-status", (el) => el.className.includes("live")), false);
  }
}

Deno.test({
  name: "a frozen leading tab hands the lead on, and followers of a leader that falls silent poll by themselves",
  ...browserTestOptions,
  fn: async () => {
    // Each case waits out a follower's 25 s of silence (a constant of the page's script), idle most of that time:
    // on a console and a Chromium of its own each, they share no tab, lock or channel (each console has its own
    // origin), so they wait at once instead of one after the other. The second console starts once the first is up:
    // a console building its assets stops the bundler when done, which would cut short another's build beside it.
    const { promise: firstUp, resolve } = Promise.withResolvers<void>();
    const frozen = withHookBrowser((bench) => {
      resolve();
      return frozenLeader(bench);
    });
    const silent = firstUp.then(() => withHookBrowser(silentLeader));
    const results = await Promise.allSettled([frozen.finally(resolve), silent]);
    const failed = results.flatMap((r, i) => r.status === "rejected" ? [[["frozen", "silent"][i], r.reason]] : []);
    if (failed.length === 1) throw new Error(`the ${failed[0][0]} leader's case failed`, { cause: failed[0][1] });
    if (failed.length > 1) throw new AggregateError(failed.map(([, e]) => e), "both cases failed");
  },
});
