// Careless input to the relay: a misspelt field, a schedule with holes, a URL
// too long to store. Each is refused with an error that names it, and stored
// data stays as it was.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { seedHooks } from "./fixtures.ts";

Deno.test("destinations.add() refuses a field it does not take (a typo would forward every hook) and stores nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    const secret = "whsec_" + btoa("0123456789abcdef0123456789abcdef");
    const typos: Array<[Record<string, unknown>, string]> = [
      [{ url: "http://127.0.0.1:9/", hookId: "h1" }, "hookId"],
      [{ url: "http://127.0.0.1:9/", hookIds: ["h1"], enabled: false }, "enabled"],
      [{ url: "http://127.0.0.1:9/", id: "mine" }, "id"],
      [{ url: "http://127.0.0.1:9/", signingSecret: secret }, "signingSecret"],
    ];
    for (const [input, field] of typos) {
      await assert.rejects(relay.destinations.add(input as never), (e: Error) => {
        assert.ok(e instanceof TypeError);
        assert.match(
          e.message,
          new RegExp(
            `^Cannot add destination: it takes only 'url', 'hookIds', 'secret', 'pinned' and 'unique', got "${field}"$`,
          ),
        );
        assert.ok(!e.message.includes(secret.slice(6)));
        return true;
      });
    }
    assert.deepEqual(await relay.destinations.list(), []);
    const added = await relay.destinations.add({ url: "http://127.0.0.1:9/", hookIds: ["h1"], secret, pinned: false });
    assert.deepEqual(added.hookIds, ["h1"]);
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("createRelay() refuses a schedule with a hole or an undefined wait (it ended the retries there)", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const holes = [[undefined, 5_000], new Array(3), Object.assign([5_000, 5_000], { length: 3 })];
    for (const schedule of holes) {
      assert.throws(
        () => createRelay(kv, { schedule: schedule as number[] }),
        (e: Error) =>
          e instanceof TypeError &&
          /^Cannot create relay: 'schedule\[\d\]' must be a number, got undefined$/.test(e.message),
        JSON.stringify(schedule),
      );
    }
    await createRelay(kv, { schedule: [] }).close(); // no retries: a dead letter after the first failure
  } finally {
    kv.close();
  }
});

Deno.test("destinations.add() and update() refuse a URL too long to store, naming its length, and keep the stored one", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    const added = await relay.destinations.add({ url: "http://127.0.0.1:9/" + "a".repeat(8_000) });
    const long = "http://127.0.0.1:9/" + "a".repeat(70_000); // past KV's 64 KiB value: "Value too large" before
    const refused = (e: Error) =>
      e instanceof TypeError && /'url' must be at most 8192 characters, got 70019$/.test(e.message);
    await assert.rejects(relay.destinations.add({ url: long }), refused);
    await assert.rejects(relay.destinations.update(added.id, { url: long }), refused);
    // Non-ASCII grows when normalised (percent-encoded): measured after.
    await assert.rejects(relay.destinations.add({ url: "http://127.0.0.1:9/" + "é".repeat(3_000) }), /at most 8192/);
    assert.deepEqual((await relay.destinations.list()).map((d) => d.url), [added.url]);
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("deadLetters() and run() name a wrong page, cursor or empty destination list (KV's own words did not)", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv);
  try {
    await assert.rejects(
      relay.deadLetters({ cursor: "garbage!" }),
      (e: Error) =>
        e instanceof TypeError &&
        e.message ===
          `Cannot list dead letters: 'cursor' must be one that a page of this list gave, got "garbage!"`,
    );
    await assert.rejects(
      relay.deadLetters({ destinationId: "d1", cursor: "%%%" }),
      /^TypeError: Cannot list dead letters: 'cursor' must be one that a page of this list gave/,
    );
    await assert.rejects(relay.deadLetters({ cursor: 5 as unknown as string }), /'cursor' must be a string, got 5/);
    await assert.rejects(
      relay.deadLetters(null as never),
      /^TypeError: Cannot list dead letters: 'options' must be an object, got null/,
    );
    assert.deepEqual(await relay.deadLetters({ cursor: "" }), { values: [], cursor: "" });
    // A filter that matched nothing made a worker that delivered nothing, without a word.
    assert.throws(
      () => relay.run({ destinations: [] }),
      (e: Error) => e instanceof RangeError && /'destinations' must name at least one destination/.test(e.message),
    );
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("a destination URL with a user name or password is refused without echoing it, on add and on update", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    const refused = (action: string) => (e: Error) => {
      assert.ok(e instanceof TypeError);
      assert.match(e.message, new RegExp(`^Cannot ${action}: 'url' must not carry a user name or password`));
      assert.ok(!e.message.includes("hunter2"), e.message);
      return true;
    };
    for (
      const url of [
        "http://ann:hunter2@127.0.0.1:9/hooks",
        "http://hunter2@127.0.0.1:9/",
        "http://:hunter2@127.0.0.1:9/",
      ]
    ) {
      await assert.rejects(relay.destinations.add({ url }), refused("add destination"));
    }
    assert.deepEqual(await relay.destinations.list(), []);
    const { id } = await relay.destinations.add({ url: "http://127.0.0.1:9/hooks" });
    await assert.rejects(
      relay.destinations.update(id, { url: "http://ann:hunter2@127.0.0.1:9/hooks" }),
      refused("update destination"),
    );
    assert.equal((await relay.destinations.get(id))?.url, "http://127.0.0.1:9/hooks", "the stored URL is unchanged");
  } finally {
    await relay.close();
    kv.close();
  }
});
