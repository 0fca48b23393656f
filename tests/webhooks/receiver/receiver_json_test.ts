// Hostile JSON semantics in a signed postback, through a real Deno.serve on
// 127.0.0.1 and a real KV: nesting too deep for KV and structuredClone, bodies
// that are not UTF-8 (Latin-1, UTF-16) and compressed bodies. Each must be a
// clear 400 that names what is wrong, with nothing stored; never a 500 (which
// the platform retries for ever) nor a body stored with U+FFFD in place of
// what was sent.

import assert from "node:assert/strict";
import { createReceiver, createWebhooks, type ReceiverOptions } from "../../../webhooks/mod.ts";
import { NOW, REF_A, seed, signA } from "../_receiver.ts";

const encoder = new TextEncoder();

/** Serves a seeded receiver on 127.0.0.1 whose `write` stores each activity as API.md's example does. */
async function withServed(
  fn: (send: (body: BodyInit, headers?: Record<string, string>) => Promise<Response>, kv: Deno.Kv) => Promise<void>,
  mode: "write" | "onPostback" = "write",
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const hooks = createWebhooks(kv);
  await seed(hooks);
  let now = NOW;
  const consume: Partial<ReceiverOptions> = mode === "write"
    ? { write: (p, atomic) => void atomic.set(["inbox", p.postbackId, p.index], p.activity) }
    : { onPostback: async (p) => void await kv.set(["inbox", p.postbackId, p.index], p.activity) };
  const receiver = createReceiver(hooks, { ...consume, now: () => now } as ReceiverOptions);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, receiver.handle);
  try {
    await fn(async (body, headers = {}) => {
      now += 1; // a fresh header each time: none is a replay of another
      return await fetch(`http://127.0.0.1:${server.addr.port}/hooks`, {
        method: "POST",
        headers: { authorization: await signA(now), "content-type": "application/json", ...headers },
        body,
      });
    }, kv);
  } finally {
    await server.shutdown();
    kv.close();
  }
}

async function stored(kv: Deno.Kv): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const entry of kv.list({ prefix: ["inbox"] })) out.push(entry.value);
  return out;
}

function nested(depth: number): string {
  return `[{"webhook":${JSON.stringify(REF_A)},"activity":{"verb":"jive:created","x":${"[".repeat(depth)}${
    "]".repeat(depth)
  }}}]`;
}

for (const mode of ["write", "onPostback"] as const) {
  Deno.test(`${mode}: a body nested 10,000 or 100,000 deep is a 400 naming the nesting, nothing stored`, async () => {
    await withServed(async (send, kv) => {
      for (const depth of [10_000, 100_000]) {
        const res = await send(nested(depth));
        const body = await res.json();
        assert.equal(res.status, 400, `${depth}: ${JSON.stringify(body)}`);
        assert.match(body.error, /^Bad request: the body nests deeper than 1000 levels$/);
      }
      assert.deepEqual(await stored(kv), []);
      // At the limit (the array, the item, the activity and 997 more) it is stored as sent.
      const res = await send(nested(997));
      assert.equal(res.status, 200, await res.text());
      const [activity] = await stored(kv) as { x: unknown }[];
      assert.equal(JSON.stringify(activity.x), "[".repeat(997) + "]".repeat(997));
    }, mode);
  });
}

Deno.test("a body that is not UTF-8 (Latin-1, UTF-16) is a 400 naming UTF-8, not stored with U+FFFD", async () => {
  await withServed(async (send, kv) => {
    const text = `[{"webhook":${JSON.stringify(REF_A)},"activity":{"verb":"jive:created","title":"caf\u00e9"}}]`;
    const latin1 = Uint8Array.from(text, (ch) => ch.charCodeAt(0));
    const utf16 = new Uint8Array([0xff, 0xfe, ...[...text].flatMap((ch) => [ch.charCodeAt(0), 0])]);
    for (const [name, bytes] of [["latin1", latin1], ["utf-16", utf16]] as const) {
      const res = await send(bytes, { "content-type": `application/json; charset=${name}` });
      assert.equal(res.status, 400, name);
      assert.deepEqual(await res.json(), { error: "Bad request: the body is not UTF-8" }, name);
    }
    assert.deepEqual(await stored(kv), []);
    // UTF-8, with or without a byte order mark, is taken as sent.
    for (const prefix of ["", "\ufeff"]) {
      const res = await send(encoder.encode(prefix + text));
      assert.equal(res.status, 200, await res.text());
    }
    assert.deepEqual((await stored(kv) as { title: string }[]).map((a) => a.title), ["caf\u00e9", "caf\u00e9"]);
  });
});

Deno.test("a compressed body (Content-Encoding: gzip) is a 400 naming Content-Encoding, nothing stored", async () => {
  await withServed(async (send, kv) => {
    const text = `[{"webhook":${JSON.stringify(REF_A)},"activity":{"verb":"jive:created"}}]`;
    const gzip = await new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"))).bytes();
    const res = await send(gzip, { "content-encoding": "gzip" });
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), {
      error: "Bad request: a compressed body (Content-Encoding) is not accepted; send it uncompressed",
    });
    assert.deepEqual(await stored(kv), []);
    // `identity` is no compression.
    const plain = await send(text, { "content-encoding": "identity" });
    assert.equal(plain.status, 200, await plain.text());
    // A list of codings, or the header repeated (which fetch joins with ", "), that are all `identity` is none either.
    for (const coding of ["IDENTITY", "identity, identity", " identity ,identity "]) {
      const res = await send(text, { "content-encoding": coding });
      assert.equal(res.status, 200, `${coding}: ${await res.text()}`);
    }
    // One real coding among them still is.
    const mixed = await send(gzip, { "content-encoding": "identity, gzip" });
    assert.equal(mixed.status, 400);
    await mixed.body?.cancel();
  });
});
