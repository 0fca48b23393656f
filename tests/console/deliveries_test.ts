import assert from "node:assert/strict";
import { DeliveryStore } from "../../console/log/mod.ts";
import { signIn, startConsole, trigger, withHook } from "./_helpers.ts";

/** Reads an SSE response until `predicate` matches the text so far. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  predicate: (text: string) => boolean,
  state: { text: string },
): Promise<void> {
  const decoder = new TextDecoder();
  const deadline = Date.now() + 5000;
  while (!predicate(state.text)) {
    assert.ok(Date.now() < deadline, `no match in: ${state.text}`);
    const { done, value } = await reader.read();
    if (done) throw new Error(`stream ended: ${state.text}`);
    state.text += decoder.decode(value, { stream: true });
  }
}

/** Checks `done` every 5 ms until it holds; fails with `message` after 3 s. */
async function waitUntil(done: () => boolean, message: string): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!done()) {
    assert.ok(Date.now() < deadline, message);
    await new Promise((r) => setTimeout(r, 5));
  }
}

Deno.test("the deliveries event stream announces a delivery as it arrives", async () => {
  await withHook(async (t, { id, platformId }, client) => {
    const abort = new AbortController();
    try {
      const res = await client.fetch(`/deliveries/events?hook=${id}`, {
        signal: abort.signal,
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /text\/event-stream/);
      const reader = res.body!.getReader();
      const state = { text: "" };
      await readUntil(reader, (s) => s.includes("event: ready"), state);
      assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
      await readUntil(reader, (s) => s.includes("event: delivery"), state);
      const stored = await t.app.deliveries.list({ hookId: id });
      assert.equal(stored.length, 1);
      const line = state.text.split("\n").find((l) => l.startsWith("data: {"))!;
      assert.deepEqual(JSON.parse(line.slice(6)), { id: stored[0].id, hookId: id, seq: stored[0].seq });
      abort.abort();
      await reader.cancel().catch(() => {});
    } finally {
      abort.abort();
    }
  });
});

Deno.test("the event stream needs a session", async () => {
  const t = await startConsole();
  try {
    const res = await fetch(`${t.origin}/deliveries/events`, { redirect: "manual" });
    await res.body?.cancel();
    assert.equal(res.status, 302);
  } finally {
    await t.close();
  }
});

Deno.test("HEAD of the event stream answers its headers and opens no stream, which nobody would read or end", async () => {
  const t = await startConsole();
  let open = 0;
  const watch = t.app.deliveries.watch.bind(t.app.deliveries);
  t.app.deliveries.watch = async (signal, onChange) => {
    open++;
    try {
      return await watch(signal, onChange);
    } finally {
      open--;
    }
  };
  try {
    const client = await signIn(t.origin);
    for (let i = 0; i < 5; i++) {
      const res = await client.fetch("/deliveries/events", { method: "HEAD" });
      await res.body?.cancel();
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /text\/event-stream/);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(open, 0, "HEAD opened a watcher");
    // A GET stream still opens one, and closing the console ends it.
    const abort = new AbortController();
    const res = await client.fetch("/deliveries/events", { signal: abort.signal });
    await readUntil(res.body!.getReader(), (text) => text.includes("event: ready"), { text: "" });
    assert.equal(open, 1);
    abort.abort();
    await waitUntil(() => open === 0, "the GET stream's watcher did not end with its client");
  } finally {
    await t.close();
  }
});

Deno.test("DeliveryStore keeps only the newest deliveries", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv, { retain: 3 });
    for (let i = 0; i < 5; i++) {
      await store.add("h1", [{ webhook: "w", activity: { verb: `v${i}` } }]);
    }
    await store.flush(); // trimmed in the background: now
    const all = await store.list();
    assert.deepEqual(all.map((d) => d.verb), ["v4", "v3", "v2"]);
    assert.equal((await store.list({ hookId: "h1" })).length, 3);
    const oldest = all[2].seq;
    assert.deepEqual((await store.list({ after: oldest })).map((d) => d.verb), ["v4", "v3"]);
    let payloads = 0;
    for await (const _ of kv.list({ prefix: ["console_delivery_body"] })) payloads++;
    assert.equal(payloads, 3);
  } finally {
    kv.close();
  }
});

Deno.test("DeliveryStore cuts a payload too large for one KV value", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv);
    const [view] = await store.add("h1", [{ webhook: "w", activity: { content: "x".repeat(200_000) } }]);
    const stored = await store.get(view.id);
    assert.equal(stored?.truncated, true);
    assert.ok(stored!.payload.length <= 48_000);
  } finally {
    kv.close();
  }
});

Deno.test("DeliveryStore refuses a retention that is not a positive integer", () => {
  const kv = {} as Deno.Kv;
  assert.throws(
    () => new DeliveryStore(kv, { retain: 0 }),
    (err: Error) =>
      err instanceof RangeError &&
      err.message === "Cannot keep deliveries: 'retain' must be a positive integer, got 0",
  );
});

Deno.test("DeliveryStore.watch() reports a new delivery and stops when aborted", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv);
    const abort = new AbortController();
    let calls = 0;
    let seen: string[] = [];
    const watching = store.watch(abort.signal, async () => {
      calls++;
      seen = (await store.list()).map((d) => d.verb);
    }, 60_000);
    while (calls < 1) await new Promise((r) => setTimeout(r, 5));
    await store.add("h1", [{ webhook: "w", activity: { verb: "jive:created" } }]);
    await waitUntil(() => seen.includes("jive:created"), "the watch reported the delivery");
    abort.abort();
    await watching;
  } finally {
    kv.close();
  }
});

Deno.test("DeliveryStore.watch() polls when the KV cannot watch", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const noWatch = new Proxy(kv, {
      get(target, prop) {
        if (prop === "watch") {
          return () => {
            throw new TypeError("watch is not supported");
          };
        }
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const store = new DeliveryStore(noWatch);
    const abort = new AbortController();
    let calls = 0;
    const watching = store.watch(abort.signal, () => {
      calls++;
      return Promise.resolve();
    }, 20);
    await waitUntil(() => calls >= 3, "polled");
    abort.abort();
    await watching;
  } finally {
    kv.close();
  }
});
