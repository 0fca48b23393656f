// `relay add --url URL [--hook ID,...] [--allow-private-network] [--print-secret]`: an operator adds their app as a
// destination from the command line, as the console's Forward to does, for a relay worker on the KV (the console's,
// a service's own) to deliver. The signing secret is WEBHOOK_SECRET (or --secret), else one generated and printed
// only with --print-secret: never a destination whose secret nobody was given. Refusals leave the KV as it was; the
// same URL for the same hooks twice (two runs at once) adds one destination. Run in process through `main` on a real
// KV file, delivered by a real relay worker to a real app on 127.0.0.1.

import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { createRelay } from "../../../webhooks/mod.ts";
import { startKvConnectServer } from "../../../kvconnect/mod.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";
import { postback, startApp, until, writeAll } from "../relay/fixtures.ts";
import { noSecret, type Ran, snapshot, withDeadLetters } from "./_relay_setup.ts";

const SECRET = "whsec_" + btoa("an app's secret of 32 bytes here");
const ID = /^Added destination ([0-9A-HJKMNP-TV-Z]{26}) for /;

/** The id of the destination `ran` added (its first line names it). */
function addedId(ran: Ran): string {
  assert.equal(ran.code, 0, ran.err);
  const id = ID.exec(ran.out)?.[1];
  assert.ok(id, `no destination named: ${ran.out}`);
  return id;
}

Deno.test("cli relay add: the hooks named go to the URL, signed with WEBHOOK_SECRET, delivered by the KV's worker", async () => {
  await withDeadLetters(0, async ({ run, kv }) => {
    const app = startApp();
    try {
      const ran = await run(["relay", "add", "--url", app.url, "--hook", "h1", "--allow-private-network"], {
        WEBHOOK_SECRET: SECRET,
      });
      const id = addedId(ran);
      assert.match(ran.out, new RegExp(`for hook h1: ${app.url.replaceAll(".", "\\.")}`));
      noSecret(ran, SECRET);
      const service = createRelay(kv, { allowPrivateNetwork: true });
      const stored = await service.destinations.get(id);
      assert.deepEqual(
        { url: stored?.url, hookIds: stored?.hookIds, enabled: stored?.enabled, pinned: stored?.pinned },
        { url: app.url, hookIds: ["h1"], enabled: true, pinned: false },
      );
      const listed = await run(["relay", "destinations"]);
      assert.match(listed.out, new RegExp(`${id}\\s+${app.url.replaceAll(".", "\\.")}\\s+h1\\s+yes\\s+no`));
      // A worker of the KV (a service's, the console's) delivers it, signed with the secret given.
      await writeAll(kv, service.write, [postback("h2", 0, "a".repeat(64)), postback("h1", 0, "b".repeat(64))]);
      const worker = service.run();
      try {
        await until(() => app.received.length === 1, 10_000, "the h1 postback delivered");
      } finally {
        await worker.stop();
        await service.close();
      }
      const [got] = app.received;
      const headers = { "webhook-id": got.id, "webhook-timestamp": got.timestamp, "webhook-signature": got.signature };
      const verified = new Webhook(SECRET).verify(got.body, headers) as { data: { postbackId: string } };
      assert.equal(verified.data.postbackId, "b".repeat(64), "h1's postback, not h2's");
    } finally {
      await app.close();
    }
  });
});

Deno.test("cli relay add --print-secret: a secret generated and shown once on stderr; --json gives the destination", async () => {
  await withDeadLetters(0, async ({ run }) => {
    const ran = await run(["relay", "add", "--url", "https://app.example/hooks", "--print-secret", "--json"]);
    assert.equal(ran.code, 0, ran.err);
    const shown = JSON.parse(ran.out);
    assert.deepEqual(Object.keys(shown).sort(), ["createdAt", "enabled", "id", "pinned", "url"]);
    assert.equal(shown.url, "https://app.example/hooks");
    const secret = /^Signing secret: (whsec_[A-Za-z0-9+/=]+)$/m.exec(ran.err)?.[1];
    assert.ok(secret, `no secret on stderr: ${ran.err}`);
    assert.ok(!ran.out.includes("whsec_"), "the secret in the JSON on stdout");
    const text = await run(["relay", "add", "--url", "https://other.example/hooks", "--print-secret"]);
    assert.match(text.out, /^Added destination [0-9A-Z]{26} for every hook: https:\/\/other\.example\/hooks/);
  });
});

Deno.test("cli relay add refuses, naming what is wrong, and leaves the KV as it was", async () => {
  await withDeadLetters(0, async ({ run, kv }) => {
    const env = { WEBHOOK_SECRET: SECRET };
    const cases: Array<[string[], Record<string, string>, number, RegExp]> = [
      [["--url", "https://app.example/x"], {}, 2, /WEBHOOK_SECRET.*--print-secret/],
      [["--url", "https://app.example/x"], { WEBHOOK_SECRET: "whsec_short" }, 2, /WEBHOOK_SECRET .*whsec_/],
      [["--url", "http://127.0.0.1:3000/x"], env, 2, /--url .*--allow-private-network/],
      [["--url", "ftp://app.example/x"], env, 2, /--url/],
      [["--url", "https://user:pw@app.example/x"], env, 2, /--url/],
      [["--url", "https://app.example/x", "--hook", ","], env, 2, /--hook/],
      [
        ["--url", "https://app.example/x", "--hook", "h1,nope"],
        env,
        1,
        /No webhook has the id 'nope' \(given with --hook\)/,
      ],
      [[], env, 2, /--url/],
    ];
    for (const [flags, given, code, message] of cases) {
      const before = await snapshot(kv);
      const ran = await run(["relay", "add", ...flags], given);
      assert.equal(ran.code, code, `${flags.join(" ")}: ${ran.err}`);
      assert.match(ran.err, message, flags.join(" "));
      assert.ok(!ran.err.includes("pw@") && !ran.err.includes("whsec_short"), `echoed: ${ran.err}`);
      assert.deepEqual(await snapshot(kv), before, `${flags.join(" ")} changed the KV`);
    }
  });
});

Deno.test("cli relay add: the same URL for the same hooks twice at once adds one destination; the other says which", async () => {
  await withDeadLetters(0, async ({ run, relay }) => {
    const env = { WEBHOOK_SECRET: SECRET };
    const argv = ["relay", "add", "--url", "https://app.example/twice", "--hook", "h2"];
    const runs = await Promise.all([run(argv, env), run(argv, env)]);
    assert.deepEqual(runs.map((r) => r.code).sort(), [0, 1], runs.map((r) => r.err).join(" | "));
    const kept = addedId(runs.find((r) => r.code === 0)!);
    const refused = runs.find((r) => r.code === 1)!;
    assert.match(refused.err, new RegExp(`already receives .*${kept}`));
    const there = (await relay.destinations.list()).filter((d) => d.url === "https://app.example/twice");
    assert.deepEqual(there.map((d) => d.id), [kept]);
  });
});

Deno.test("cli relay add with a KV Connect --kv URL adds the server's destination, one for two adds at once", async () => {
  const open = async () => {
    Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
    const server = await startKvConnectServer({ path: ":memory:", token: TEST_TOKEN });
    return { path: server.url, kv: await Deno.openKv(server.url), close: () => server.close() };
  };
  await withDeadLetters(0, async ({ run, relay }) => {
    const argv = ["relay", "add", "--url", "https://app.example/remote", "--hook", "h1,h2"];
    const runs = await Promise.all([run(argv, { WEBHOOK_SECRET: SECRET }), run(argv, { WEBHOOK_SECRET: SECRET })]);
    assert.deepEqual(runs.map((r) => r.code).sort(), [0, 1], runs.map((r) => r.err).join(" | "));
    const id = addedId(runs.find((r) => r.code === 0)!);
    assert.deepEqual((await relay.destinations.get(id))?.hookIds, ["h1", "h2"]);
    for (const ran of runs) {
      noSecret(ran, SECRET);
      assert.ok(!ran.out.includes(TEST_TOKEN) && !ran.err.includes(TEST_TOKEN), "the KV token printed");
    }
  }, open);
});
