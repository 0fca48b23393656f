// Destinations that answer a worker (in its own process) too late or break
// off: a 2xx that comes after the attempt's time fails that attempt and the
// entry is delivered again under the same webhook-id, never a dead letter;
// a 2xx whose connection is reset mid-body delivers, its attempt telling that
// the body broke off. Forwards and attempts agree afterwards.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { spawnChild } from "../_child.ts";
import { type App, startApp, until } from "./fixtures.ts";
import { allDelivered, assertSettled, fill, POSTBACK } from "./_sleepy.ts";

const CHILD = new URL("./_clock_worker_child.ts", import.meta.url).pathname;
const N = 8;

/** Runs a worker over a fresh KV file delivering N items to `app` until all arrived; returns the forwards. */
async function run(app: App, check: (kv: Deno.Kv) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/relay.kv`;
  const kv = await Deno.openKv(path);
  let worker = null;
  try {
    await fill(kv, app, N);
    worker = spawnChild(CHILD, [path, "4", "1500", "1000", "200"], { stdin: true });
    await worker.waitFor("ready");
    await until(() => allDelivered(kv, app, N), 30_000, "every item delivered");
    await worker.send("stop");
    await worker.waitFor("stopped", 10_000);
    await assertSettled(kv, app, N);
    await check(kv);
  } finally {
    await worker?.kill();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a 2xx that comes after the attempt's time fails it; the entry is sent again under its id and delivered", async () => {
  const seen = new Set<string>();
  const app = startApp(async (r) => {
    if (!seen.has(r.id)) {
      seen.add(r.id);
      await new Promise((resolve) => setTimeout(resolve, 1_300)); // past the worker's 1 s
    }
    return new Response("ok");
  });
  try {
    await run(app, async (kv) => {
      const relay = createRelay(kv, { allowPrivateNetwork: true });
      try {
        for (const f of await relay.forwards(POSTBACK)) {
          assert.equal(f.attempts, 2, `entry ${f.entryId}: ${f.attempts} attempts`);
          const attempts = await relay.attempts(f.entryId);
          assert.deepEqual(attempts.map((a) => a.status), [0, 200]);
          assert.match(attempts[0].error ?? "", /No answer within 1 s/);
        }
      } finally {
        await relay.close();
      }
    });
    assert.equal(app.received.length, 2 * N, "each entry sent twice: the late answer and the one after");
  } finally {
    await app.close();
  }
});

Deno.test("a 2xx whose connection is reset mid-body delivers, its attempt saying the body broke off", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const received: App["received"] = [];
  const serving = (async () => {
    for await (const conn of listener) {
      (async () => {
        // Reads the head and the body up to the item's index, answers 200 with part of the body it announces, and
        // closes (with any of the request unread, the kernel resets the connection).
        const buffer = new Uint8Array(64 * 1024);
        let text = "";
        while (!/"index":\d+,/.test(text)) {
          const n = await conn.read(buffer);
          if (n === null) return conn.close();
          text += new TextDecoder().decode(buffer.subarray(0, n));
        }
        const id = /webhook-id: (\S+)/i.exec(text)?.[1] ?? "";
        const body = JSON.stringify({ data: { index: Number(/"index":(\d+),/.exec(text)![1]) } });
        received.push({ method: "POST", id, timestamp: "", signature: "", contentType: "", body, at: 0 });
        await conn.write(new TextEncoder().encode("HTTP/1.1 200 OK\r\ncontent-length: 5000\r\n\r\nhalf of it"));
        conn.close();
      })().catch(() => {});
    }
  })().catch(() => {});
  const app = { url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/hooks`, received } as App;
  try {
    await run(app, async (kv) => {
      const relay = createRelay(kv, { allowPrivateNetwork: true });
      try {
        for (const f of await relay.forwards(POSTBACK)) {
          const attempts = await relay.attempts(f.entryId);
          assert.equal(attempts[0].status, 200);
          assert.match(attempts[0].error ?? "", /The answer's body broke off/);
        }
      } finally {
        await relay.close();
      }
    });
  } finally {
    listener.close();
    await serving;
  }
});
