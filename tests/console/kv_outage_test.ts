// One console over KV Connect, its KV server a child process, under a steady
// load of signed postbacks (8 at a time): the server stopped (SIGSTOP) for
// 5 s and let go on, or killed (SIGKILL) and started again on the same file
// and port. Every postback answered 200 is stored once; during the outage
// answers are 5xx or a late 200, none after more than 10 s; `/readyz` says
// 503 during it and 200 after, with no restart of the console; the
// postbacks not answered 200 are taken once sent again (the platform
// retries), so that the KV ends with each of them once.

import assert from "node:assert/strict";
import { loadFixture, postbackBody, Signer } from "../../scripts/load_postbacks.ts";
import { countDeliveries, seedConsoleKv } from "../../scripts/load_processes.ts";
import { TEST_TOKEN } from "../kvconnect/token.ts";
import { type KvChild, startConsoleOver, startKvChild } from "./_kv_child.ts";

const AT_ONCE = 8;
const LONGEST_ANSWER_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function underOutage(outage: (kv: KvChild) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cw-kv-outage-" });
  await using kv = await startKvChild(`${dir}/remote.kv`);
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const fixture = loadFixture();
  await seedConsoleKv(kv.url, fixture);
  const console_ = await startConsoleOver(kv);
  const signer = new Signer(fixture.community);
  const send = async (id: string): Promise<{ status: number; ms: number }> => {
    const start = Date.now();
    const res = await fetch(`${console_.url}/hooks/${fixture.hook.id}`, {
      method: "POST",
      headers: { authorization: signer.next(), "content-type": "application/json" },
      body: postbackBody(fixture.ref, id),
      signal: AbortSignal.timeout(60_000),
    });
    await res.body?.cancel();
    return { status: res.status, ms: Date.now() - start };
  };
  const readyz = async () => {
    const res = await fetch(`${console_.url}/readyz`, { signal: AbortSignal.timeout(10_000) });
    await res.body?.cancel();
    return res.status;
  };
  const answered = new Map<string, number>();
  let stop = false;
  let next = 0;
  let slowest = 0;
  let load: Promise<unknown> = Promise.resolve();
  try {
    load = Promise.all(Array.from({ length: AT_ONCE }, async () => {
      while (!stop) {
        const id = `o${next++}`;
        const { status, ms } = await send(id);
        answered.set(id, status);
        slowest = Math.max(slowest, ms);
        assert.ok(status === 200 || status >= 500, `${id} answered ${status}`);
        await sleep(20);
      }
    }));
    await sleep(2_000);
    assert.equal(await readyz(), 200, "ready before the outage");
    const before = answered.size;
    const outageDone = outage(kv);
    await sleep(1_000);
    assert.equal(await readyz(), 503, "not ready during the outage");
    await outageDone;
    // Recovered without a restart of the console: ready, and postbacks answered 200 again, within 15 s.
    const deadline = Date.now() + 15_000;
    while (await readyz() !== 200 && Date.now() < deadline) await sleep(250);
    assert.equal(await readyz(), 200, "ready again after the outage");
    const after = answered.size;
    // Load goes on 2 s past the recovery, and on until over a hundred were answered since the outage began: how many
    // fit in 2 s is how fast the machine is, and the check below is that the load went on, not how fast.
    const loadUntil = Date.now() + 30_000;
    await sleep(2_000);
    while (answered.size <= before + 100 && Date.now() < loadUntil) await sleep(100);
    stop = true;
    await load;
    const late = [...answered].slice(after).filter(([, s]) => s !== 200).length;
    assert.equal(late, 0, `${late} postbacks after the recovery were not answered 200`);
    assert.ok(answered.size > before + 100, "the load went on");
    assert.ok(slowest <= LONGEST_ANSWER_MS, `a postback waited ${slowest} ms for its answer`);

    const ok = [...answered].filter(([, s]) => s === 200).map(([id]) => `Load ${id}`);
    const first = await countDeliveries(kv.url, fixture.hook.id);
    for (const title of ok) assert.ok(first.titles.has(title), `${title} answered 200 but not stored`);
    // The platform sends again what was not answered 200: each is then stored, none twice.
    for (const [id, status] of answered) if (status !== 200) assert.equal((await send(id)).status, 200, id);
    const { total, titles } = await countDeliveries(kv.url, fixture.hook.id);
    assert.equal(total, titles.size, "no postback stored twice");
    assert.equal(total, answered.size, "every postback stored");
  } finally {
    stop = true;
    await load.catch(() => {});
    await console_.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

Deno.test("KV Connect server stopped (SIGSTOP) 5 s mid-load: answers bounded, not ready, then all stored once", async () => {
  await underOutage(async (kv) => {
    kv.signal("SIGSTOP");
    await sleep(5_000);
    kv.signal("SIGCONT");
  });
});

Deno.test("KV Connect server killed (SIGKILL) and started again mid-load: the console recovers without a restart", async () => {
  await underOutage(async (kv) => {
    await kv.kill();
    await sleep(3_000);
    await kv.restart();
  });
});
