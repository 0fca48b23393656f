// Two `hooks register` of one request started at the same instant (two operators, a script run twice, a retry
// loop): each read the community's pending entries before either had written its own, both passed the refusal of
// an unfinished registration, and the platform got two hooks with the same callback, object and events, the app
// every postback twice. One must register; the other must refuse (status 1, nothing sent to the platform), saying a
// registration of the same request is running (or began and did not finish, once the first has written its pending
// entry). Run in one process through `main`, so both reads come before either write; the platform holds each POST
// until the other command has returned or has posted too. A claim held with no pending entry yet (its command
// between its claim and its entry, or killed there) refuses with its own message, until it lapses.

import assert from "node:assert/strict";
import {
  ACCESS,
  addAcme,
  REFRESH,
  registerAcmeHook,
  registerTwiceAtOnce,
  runMain,
  SECRET,
  withSetup,
} from "./_cli_setup.ts";
import { type Platform, startPlatform } from "../platform.ts";
import { startKvConnectServer } from "../../../kvconnect/mod.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";
import { createWebhooks } from "../../../webhooks/mod.ts";

/** How long a claim holds (docs/cli.md: at most 2 minutes). */
const CLAIM_MS = 2 * 60_000;

/**
 * Writes the claim that a command claiming `events` to `callback` at `startedAt` holds, as the CLI keeps it: under
 * the tenant and the SHA-256 of the callback, object and sorted events (written here as another command would).
 */
async function claimAs(kv: Deno.Kv, tenantId: string, events: string[], startedAt: number): Promise<void> {
  const text = JSON.stringify([CALLBACK, "", [...events].sort()]);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  await kv.set(["cli_register_claim", tenantId, hex], { startedAt, until: startedAt + CLAIM_MS });
}

const CALLBACK = "https://me.example/twice";

/** Two `hooks register` of one request at once on the KV at `kv`: one registers, the other refuses; then a third. */
async function twiceAtOnce(kv: string, platform: Platform): Promise<void> {
  const args = [...registerAcmeHook(kv), "--callback", CALLBACK];
  const { runs: [a, b], posts } = await registerTwiceAtOnce(platform, args);

  assert.equal(posts, 1, `the platform got ${posts} registrations`);
  assert.equal((await platform.listHooks()).length, 1);
  const [done, refused] = a.code === 0 ? [a, b] : [b, a];
  assert.equal(done.code, 0, done.err);
  assert.match(done.out, /^Registered webhook /);
  assert.equal(refused.code, 1, refused.out);
  assert.equal(refused.out, "");
  assert.match(
    refused.err,
    /^Error: a registration of this callback \(same object and events\) (is running now|began at .* did not finish)/,
  );
  assert.match(refused.err, /--again/);
  for (const text of [a.out, a.err, b.out, b.err]) {
    for (const secret of [SECRET, ACCESS, REFRESH]) assert.ok(!text.includes(secret), "a secret printed");
  }

  // Once the first has finished, its claim is deleted and no entry is pending: the same command registers again,
  // as before this change (a second hook of one request on purpose).
  const third = await runMain(args);
  assert.equal(third.code, 0, third.err);
  assert.equal((await platform.listHooks()).length, 2);
}

Deno.test("cli hooks register twice at the same instant: one registers, the other refuses before any request", async () => {
  await withSetup(twiceAtOnce);
});

Deno.test("cli hooks register twice at the same instant on a KV Connect --kv URL: one registers, the other refuses", async () => {
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const server = await startKvConnectServer({ path: ":memory:", token: TEST_TOKEN });
  const platform = await startPlatform({ clientSecret: SECRET });
  try {
    const added = await runMain(addAcme(server.url, platform.url));
    assert.equal(added.code, 0, added.err);
    await twiceAtOnce(server.url, platform);
  } finally {
    await platform.close();
    await server.close();
  }
});

Deno.test("cli hooks register while another command holds the claim: refused, says it runs and when its claim lapses", async () => {
  await withSetup(async (kv, platform) => {
    const store = await Deno.openKv(kv);
    try {
      const acme = await createWebhooks(store).communities.findByName("Acme");
      assert.ok(acme);
      // Claimed 30 s ago by a command that has not written its entry yet.
      await claimAs(store, acme.tenantId, ["user_account"], Date.now() - 30_000);
      const args = [...registerAcmeHook(kv), "--callback", CALLBACK];
      const refused = await runMain(args);
      assert.equal(refused.code, 1, refused.out);
      assert.equal(refused.out, "");
      assert.match(
        refused.err,
        /^Error: a registration of this callback \(same object and events\) is running now in another command \(began at \d{4}-\S+Z, 3\d s ago; if that command was killed, its claim lapses in (8\d|9\d) s\)/,
      );
      assert.match(refused.err, /--again/);
      assert.equal((await platform.listHooks()).length, 0);

      // Other events are another request: not refused. --again registers regardless of the claim.
      assert.equal(
        (await runMain([...registerAcmeHook(kv), "--events", "user_session", "--callback", CALLBACK])).code,
        0,
      );
      assert.equal((await runMain([...args, "--again"])).code, 0);
      assert.equal((await platform.listHooks()).length, 2);

      // A claim that lapsed (its command killed 2 minutes ago) is taken over: the register goes through.
      await claimAs(store, acme.tenantId, ["user_account"], Date.now() - CLAIM_MS - 1);
      const after = await runMain(args);
      assert.equal(after.code, 0, after.err);
      assert.equal((await platform.listHooks()).length, 3);
    } finally {
      store.close();
    }
  });
});
