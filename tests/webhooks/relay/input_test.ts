// Wrong input to the relay: options, destination URLs (the private-address
// guard), hook ids and secrets; errors name the value but never a secret.

import assert from "node:assert/strict";
import { createRelay, type RelayOptions } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

Deno.test("createRelay() throws a TypeError or RangeError naming a wrong option", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const cases: Array<[RelayOptions, ErrorConstructor, RegExp]> = [
      [{ schedule: "5s" as unknown as number[] }, TypeError, /'schedule' must be an array.*"5s"/],
      [{ schedule: [5_000, -1] }, RangeError, /'schedule\[1\]'.*-1/],
      [{ attemptTimeoutMs: 0 }, RangeError, /'attemptTimeoutMs'.*0/],
      [{ attemptTimeoutMs: "15" as unknown as number }, TypeError, /'attemptTimeoutMs' must be a number, got "15"/],
      [{ leaseMs: 10_000 }, RangeError, /'leaseMs' \(10000\) must be more than 'attemptTimeoutMs' \(15000\)/],
      // The defaults, as API.md gives them: leaseMs 30,000 against a longer attempt time.
      [{ attemptTimeoutMs: 30_000 }, RangeError, /'leaseMs' \(30000\) must be more than 'attemptTimeoutMs' \(30000\)/],
      [{ allowPrivateNetwork: 1 as unknown as boolean }, TypeError, /'allowPrivateNetwork' must be a boolean, got 1/],
      [{ fetch: {} as typeof fetch }, TypeError, /'fetch' must be a function/],
      [{ now: 5 as unknown as () => number }, TypeError, /'now' must be a function, got 5/],
      [{ pollMs: Infinity }, RangeError, /'pollMs'/],
    ];
    for (const [options, type, message] of cases) {
      assert.throws(() => createRelay(kv, options), (e: Error) => e instanceof type && message.test(e.message));
    }
    assert.throws(() => createRelay({} as Deno.Kv), /'kv' must be a Deno.Kv/);
    await createRelay(kv, { attemptTimeoutMs: 29_999 }).close(); // within the default lease of 30,000 ms
    const relay = createRelay(kv);
    assert.throws(() => relay.run({ concurrency: 0 }), RangeError);
    assert.throws(() => relay.run({ concurrency: 1.5 }), TypeError);
    assert.throws(() => relay.run({ destinations: [""] }), /'destinations' must be an array of destination ids/);
    // Too long for a KV key, so no destination's: a worker for it would fail each look and deliver nothing.
    assert.throws(
      () => relay.run({ destinations: ["x".repeat(3_000)] }),
      /'destinations' names an id of 3000 characters/,
    );
    await assert.rejects(relay.deadLetters({ limit: 0 }), RangeError);
    await assert.rejects(relay.attempts(""), TypeError);
    await relay.close();
  } finally {
    kv.close();
  }
});

Deno.test("destinations.add() refuses loopback, private and link-local hosts, IPv6 forms of IPv4 included", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv);
  try {
    const refused = [
      "http://127.0.0.1/hooks",
      "http://localhost:8000/hooks",
      "http://app.localhost/",
      "http://[::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:7f00:1]/",
      "http://[::ffff:a9fe:a9fe]/", // 169.254.169.254
      "http://[64:ff9b::a00:1]/", // NAT64 of 10.0.0.1
      "http://10.1.2.3/",
      "http://172.16.0.1/",
      "http://192.168.1.1/",
      "http://169.254.169.254/latest/meta-data",
      "http://[fe80::1]/",
      "http://[fd00:ec2::254]/",
      "http://0.0.0.0/",
      "http://2130706433/", // 127.0.0.1 as one number
    ];
    for (const url of refused) {
      await assert.rejects(
        relay.destinations.add({ url }),
        (e: Error) => e instanceof TypeError && /loopback, private or link-local/.test(e.message),
        url,
      );
    }
    const ok = await relay.destinations.add({ url: "https://93.184.215.14/hooks" });
    await assert.rejects(relay.destinations.update(ok.id, { url: "http://10.0.0.1/" }), /loopback, private/);
    assert.equal((await relay.destinations.get(ok.id))?.url, "https://93.184.215.14/hooks");
    assert.equal((await relay.destinations.list()).length, 1);
    const allowing = createRelay(kv, { allowPrivateNetwork: true });
    assert.equal((await allowing.destinations.add({ url: "http://127.0.0.1:1/" })).url, "http://127.0.0.1:1/");
    await allowing.close();
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("a worker without allowPrivateNetwork refuses at delivery a private destination added by one with it", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const admin = createRelay(kv, { allowPrivateNetwork: true });
  const strict = createRelay(kv, { schedule: [60_000] });
  try {
    await seedHooks(kv);
    await admin.destinations.add({ url: app.url });
    const worker = strict.run();
    await writeAll(kv, strict.write, [postback("h1")]);
    let id = "";
    await until(
      async () => {
        for await (const e of kv.list<{ id: string }>({ prefix: ["relay_attempt"] })) id = e.key[1] as string;
        return id !== "";
      },
      5_000,
      "an attempt",
    );
    await worker.stop();
    const [attempt] = await strict.attempts(id);
    assert.equal(attempt.status, 0);
    assert.match(attempt.error!, /^Refused: 127\.0\.0\.1:\d+ is a loopback, private or link-local address/);
    assert.equal(app.received.length, 0);
  } finally {
    await admin.close();
    await strict.close();
    await app.close();
    kv.close();
  }
});

Deno.test("destinations.add() refuses a bad URL, an unknown hook id and a malformed secret without echoing it", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    for (const url of ["ftp://files.example/x", "/hooks", "https:/one-slash", "http://a b/", 42, undefined]) {
      await assert.rejects(
        relay.destinations.add({ url } as { url: string }),
        (e: Error) => e instanceof TypeError && /'url' must be an absolute http\(s\) URL/.test(e.message),
        String(url),
      );
    }
    await assert.rejects(
      relay.destinations.add({ url: "https://93.184.215.14/", hookIds: ["h1", "nope"] }),
      /Cannot add destination: unknown hook id "nope"/,
    );
    await assert.rejects(relay.destinations.add({ url: "https://93.184.215.14/", hookIds: [] }), /'hookIds'/);
    const secrets = ["not-a-secret-but-long-enough-to-be-one", "whsec_short", "whsec_" + "A".repeat(200), "whsec_!!!!"];
    for (const secret of secrets) {
      await assert.rejects(relay.destinations.add({ url: "https://93.184.215.14/", secret }), (e: Error) => {
        assert.ok(e instanceof TypeError);
        assert.match(e.message, /'secret' must be 'whsec_' followed by 24 to 64 bytes in base64/);
        assert.ok(!e.message.includes(secret));
        return true;
      });
    }
    const given = "whsec_" + btoa("0123456789abcdef0123456789abcdef");
    const added = await relay.destinations.add({ url: "https://93.184.215.14/", secret: given, hookIds: ["h2"] });
    assert.equal(added.secret, given);
    const generated = await relay.destinations.add({ url: "https://93.184.215.14/other" }); // one URL, one destination a hook
    assert.match(generated.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(atob(generated.secret.slice(6)).length, 32);
    // The secret is shown once: nothing else returns it.
    const listed = JSON.stringify([await relay.destinations.list(), await relay.destinations.get(added.id)]);
    assert.ok(!listed.includes("whsec_"));
    await assert.rejects(relay.destinations.update(added.id, { hookIds: ["gone"] }), /unknown hook id "gone"/);
    await assert.rejects(
      relay.destinations.update(added.id, { secret: given } as never),
      /only 'url', 'hookIds' and 'enabled' change/,
    );
    assert.deepEqual((await relay.destinations.update(added.id, { hookIds: null, enabled: false }))?.enabled, false);
    assert.equal((await relay.destinations.get(added.id))?.hookIds, undefined);
    assert.equal(await relay.destinations.update("missing", { enabled: true }), null);
    assert.equal(await relay.destinations.remove(added.id), true);
    assert.equal(await relay.destinations.remove(added.id), false);
  } finally {
    await relay.close();
    kv.close();
  }
});
