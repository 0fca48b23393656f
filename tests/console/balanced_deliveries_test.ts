// The delivery log read behind one address in front of two console processes on one KV (tests/console/_balanced.ts):
// postbacks received by both, its pages and `deliveries.json` cursors made by one process and read by the other, and
// the live view on one process showing what the other received, then opened again on the other with the cursor the
// page had (what the page asks after its stream's `ready`): no delivery missing, none twice.

import assert from "node:assert/strict";
import { startBalanced } from "./_balanced.ts";
import { type Client, connectSandbox, parse, registerHook, signIn } from "./_helpers.ts";

/** Triggers the sandbox `n` times (every hook gets a postback each time). */
async function trigger(client: Client, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await client.fetch("/sandbox/trigger", {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    assert.equal(res.status, 200, await res.text());
  }
}

type View = { id: string; seq: number };

Deno.test("pages and deliveries.json cursors of one console read on the other: each delivery once", async () => {
  await using lb = await startBalanced({ RATE_LIMIT_SANDBOX: "0" });
  const client = await signIn(lb.origin);
  await connectSandbox(client, lb.origin);
  await registerHook(client, lb.origin);
  let postbacks = 0;
  lb.route((_method, path) => path.startsWith("/hooks/") ? (postbacks++ % 2 ? "A" : "B") : "A");
  await trigger(client, 60);
  lb.route(null);

  const ids: string[] = [];
  let path: string | null = "/deliveries";
  while (path) {
    const page = parse(await client.text(path, 200));
    try {
      for (const row of page.document.querySelectorAll("tr.delivery")) ids.push(row.id);
      path = page.document.querySelector("#older")?.getAttribute("href") ?? null;
    } finally {
      page.close();
    }
  }
  assert.equal(ids.length, 60);
  assert.equal(new Set(ids).size, 60);
  assert.ok(lb.served.filter((s) => s.path.startsWith("/deliveries")).length >= 2);

  lb.next("A");
  const newest: View[] = (await (await client.fetch("/deliveries.json")).json()).values;
  assert.equal(newest.length, 60);
  const cursor = newest[30].seq;
  lb.next("B");
  const after: View[] = (await (await client.fetch(`/deliveries.json?after=${cursor}`)).json()).values;
  assert.deepEqual(after.map((v) => v.id).sort(), newest.filter((v) => v.seq > cursor).map((v) => v.id).sort());
});

Deno.test("the live view shows the other console's deliveries, and its cursor read there misses none", async () => {
  await using lb = await startBalanced({ RATE_LIMIT_SANDBOX: "0" });
  const client = await signIn(lb.origin);
  await connectSandbox(client, lb.origin);
  await registerHook(client, lb.origin);
  lb.next("A");
  const live = await client.fetch("/deliveries/events");
  const reader = live.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let read = reader.read();
  const until = async (pattern: RegExp, ms: number) => {
    const end = Date.now() + ms;
    while (!pattern.test(text) && Date.now() < end) {
      const next = await Promise.race([read, new Promise<null>((r) => setTimeout(() => r(null), 250))]);
      if (next === null) continue;
      if (next.done) break;
      text += next.value;
      read = reader.read();
    }
  };
  await until(/event: ready/, 5_000);
  lb.route((_method, path) => path.startsWith("/hooks/") ? "B" : "A");
  await trigger(client, 2);
  await until(/(event: delivery[\s\S]*){2}/, 5_000);
  await reader.cancel();
  const seen = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  assert.equal(seen.length, 2, `the live view on A showed ${seen.length} of B's 2 deliveries`);

  // Closed; three more arrive, on both; the page opens its stream again on B and asks what came after its newest.
  let postbacks = 0;
  lb.route((_method, path) => path.startsWith("/hooks/") ? (postbacks++ % 2 ? "A" : "B") : "A");
  await trigger(client, 3);
  lb.route(null);
  lb.next("B");
  const again = await client.fetch("/deliveries/events", { headers: { "last-event-id": String(Math.max(...seen)) } });
  const r2 = again.body!.pipeThrough(new TextDecoderStream()).getReader();
  let t2 = "";
  while (!/event: ready/.test(t2)) t2 += (await r2.read()).value;
  await r2.cancel();
  lb.next("A");
  const since: View[] = (await (await client.fetch(`/deliveries.json?since=${Math.max(...seen)}`)).json()).values;
  assert.equal(new Set(since.map((v) => v.id)).size, since.length, "a delivery twice");
  assert.equal(since.filter((v) => v.seq > Math.max(...seen)).length, 3, "the deliveries of the gap");
});
