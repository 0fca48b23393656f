// Defects found by a hostile review of the relay: each test failed on the
// code before its fix.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

Deno.test("destinations.add() with unique refuses a URL that differs only by its fragment (never sent, same app)", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  const app = startApp();
  try {
    await seedHooks(kv);
    const first = await relay.destinations.add({ url: `${app.url}#a`, hookIds: ["h1"], unique: true });
    assert.equal(first.url, app.url);
    await assert.rejects(
      () => relay.destinations.add({ url: `${app.url}#b`, hookIds: ["h1"], unique: true }),
      /^TypeError: Cannot add destination: .* already receives the postbacks of hook 'h1'/,
    );
    const other = await relay.destinations.add({ url: `${app.url}/other`, hookIds: ["h1"], unique: true });
    await assert.rejects(
      () => relay.destinations.update(other.id, { url: `${app.url}#c`, unique: true }),
      /already receives the postbacks of hook 'h1'/,
    );
    await relay.destinations.remove(other.id);
    // The app gets each postback once.
    await new Promise((r) => setTimeout(r, 50));
    await writeAll(kv, relay.write, [postback("h1")]);
    const worker = relay.run();
    await app.waitFor(1);
    await new Promise((r) => setTimeout(r, 200));
    await worker.stop();
    assert.equal(app.received.length, 1);
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("relay.attempts() answers an id too long for a KV key with no attempts, as deadLetter() and redeliver() do", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv);
  try {
    for (const id of ["x".repeat(2_100), "€".repeat(700), `msg_${"0".repeat(4_000)}`]) {
      assert.deepEqual(await relay.attempts(id), []);
      assert.equal(await relay.deadLetter(id), null);
      assert.equal(await relay.redeliver(id), false);
    }
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("destinations.add() and update() refuse a hook id too long for a KV key as an unknown hook id", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    const long = "h".repeat(3_000);
    await assert.rejects(
      () => relay.destinations.add({ url: "http://127.0.0.1:9/", hookIds: ["h1", long] }),
      (e: Error) => e instanceof TypeError && /^Cannot add destination: unknown hook id "h{77}\.\.\."$/.test(e.message),
    );
    const added = await relay.destinations.add({ url: "http://127.0.0.1:9/", hookIds: ["h1"] });
    await assert.rejects(
      () => relay.destinations.update(added.id, { hookIds: [long] }),
      (e: Error) => e instanceof TypeError && /^Cannot update destination: unknown hook id/.test(e.message),
    );
    assert.deepEqual((await relay.destinations.get(added.id))?.hookIds, ["h1"]);
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("a fanned-out item too big for one commit of all its copies reaches every destination, and blocks no other", async () => {
  const kv = await Deno.openKv(":memory:");
  const admin = createRelay(kv, { allowPrivateNetwork: true });
  const app = startApp();
  // A relay that has not read its destinations yet: its write stores each item once, for a worker to fan out.
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    for (let i = 0; i < 17; i++) await admin.destinations.add({ url: `${app.url}/${i}` });
    const big = postback("h1", 0, "b".repeat(64));
    big.activity.title = "x".repeat(50_000); // 17 copies: past a commit's 800 KiB
    await writeAll(kv, relay.write, [big, postback("h1", 0, "s".repeat(64))]);
    const worker = relay.run();
    const delivered = async (p: string) => {
      const forwards = await relay.forwards(p.repeat(64));
      return new Set(forwards.map((f) => f.destinationId)).size === 17 &&
        forwards.every((f) => f.state === "delivered");
    };
    try {
      await until(async () => await delivered("b") && await delivered("s"), 10_000, "every forward delivered");
    } finally {
      await worker.stop();
    }
    assert.equal(app.received.length, 34);
    for (const prefix of [["relay_fanout"], ["relay_fanout_after"], ["relay_due"]]) {
      for await (const entry of kv.list({ prefix })) assert.fail(`${entry.key} was left`);
    }
  } finally {
    await relay.close();
    await admin.close();
    await app.close();
    kv.close();
  }
});

Deno.test("a fanned-out item reaches a destination added before it by a process whose clock runs ahead", async () => {
  const kv = await Deno.openKv(":memory:");
  // The console's machine, its clock 10 s ahead of the receiver's.
  const admin = createRelay(kv, { allowPrivateNetwork: true, now: () => Date.now() + 10_000 });
  const app = startApp();
  try {
    await seedHooks(kv);
    await admin.destinations.add({ url: app.url });
    await new Promise((r) => setTimeout(r, 1_200)); // past the second within which a write must see it
    // A receiver's relay that has not read its list yet: the item is stored once, for a worker to fan out.
    const relay = createRelay(kv, { allowPrivateNetwork: true });
    await writeAll(kv, relay.write, [postback("h1", 0, "k".repeat(64))]);
    const worker = relay.run();
    try {
      await app.waitFor(1, 5_000);
    } finally {
      await worker.stop();
      await relay.close();
    }
    assert.equal(app.received.length, 1);
  } finally {
    await admin.close();
    await app.close();
    kv.close();
  }
});

Deno.test("a malformed destination URL with a password is refused without echoing the password", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    const { id } = await relay.destinations.add({ url: "http://127.0.0.1:9/hooks" });
    for (
      const url of [
        "http://ann:hunter2@app.example/hooks\n", // pasted with its line's end
        " https://ann:hunter2@app.example/hooks",
        "http://ann:hunter2@app example/",
        "ftp://ann:hunter2@app.example/",
        "ann:hunter2@app.example/hooks",
        "http:\\\\ann:hunter2@app.example\\hooks",
        "https://ann:hunter2@/hooks",
        "http://ann:hunter2@x@app.example/#@",
      ]
    ) {
      for (const attempt of [() => relay.destinations.add({ url }), () => relay.destinations.update(id, { url })]) {
        await assert.rejects(attempt, (e: Error) => {
          assert.ok(e instanceof TypeError);
          assert.match(e.message, /'url'/);
          assert.ok(!e.message.includes("hunter2"), e.message);
          return true;
        });
      }
    }
    assert.equal((await relay.destinations.get(id))?.url, "http://127.0.0.1:9/hooks");
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("destinations.get(), update() and remove() answer an id too long for a KV key as an unknown one", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv);
  try {
    for (const id of ["x".repeat(3_000), "€".repeat(700)]) {
      assert.equal(await relay.destinations.get(id), null);
      assert.equal(await relay.destinations.update(id, { enabled: false }), null);
      assert.equal(await relay.destinations.remove(id), false);
    }
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("a worker for some destinations reaches their entries behind a backlog of 600 due for a destination it skips", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  const app = startApp();
  try {
    await seedHooks(kv);
    // A's worker is down (its own process, stopped): its entries pile up, due, ahead of B's.
    await relay.destinations.add({ url: "http://127.0.0.1:9/a", hookIds: ["h1"] });
    const b = await relay.destinations.add({ url: app.url, hookIds: ["h2"] });
    await writeAll(kv, relay.write, Array.from({ length: 600 }, (_, i) => postback("h1", i, "a".repeat(64))), 50);
    await writeAll(kv, relay.write, [postback("h2", 0, "b".repeat(64))]);
    const worker = relay.run({ destinations: [b.id] });
    try {
      await app.waitFor(1, 5_000);
    } finally {
      await worker.stop();
    }
    assert.equal(app.received.length, 1);
    assert.equal(JSON.parse(app.received[0].body).data.webhook, "h2");
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("a worker whose list of destinations fails to load keeps an entry of one it does not know yet, and sends it later", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const elsewhere = createRelay(kv, { allowPrivateNetwork: true }); // another process, on the same KV
  const relay = createRelay(kv, { allowPrivateNetwork: true, leaseMs: 1_500, attemptTimeoutMs: 1_000, pollMs: 50 });
  const list = kv.list.bind(kv);
  let failing = false;
  kv.list = ((selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
    const first = "prefix" in selector ? selector.prefix[0] : undefined;
    if (failing && first === "relay_destination") throw new Error("the KV failed");
    return list(selector, options);
  }) as Deno.Kv["list"];
  try {
    await seedHooks(kv);
    await elsewhere.destinations.add({ url: app.url, hookIds: ["h1"] });
    await new Promise((r) => setTimeout(r, 100)); // its writer's list reloads after the add
    await writeAll(kv, elsewhere.write, [postback("h1")]);
    failing = true; // this worker's list cannot load: it has never seen the destination
    const worker = relay.run();
    await new Promise((r) => setTimeout(r, 300));
    failing = false;
    await app.waitFor(1, 5_000); // once its lease has run out, taken again and sent
    await worker.stop();
    assert.equal(app.received.length, 1);
  } finally {
    kv.list = list;
    await relay.close();
    await elsewhere.close();
    await app.close();
    kv.close();
  }
});
