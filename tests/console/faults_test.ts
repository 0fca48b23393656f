// The console's receiver under faults, as separate processes on one KV file:
// kill -9 in the middle of load, then a restart; and two consoles serving at
// once (issue 13 item 2, issue 15 item 5). The books must balance: every
// postback answered 200 is stored whole, once, and none is stored in part.

import assert from "node:assert/strict";
import { loadFixture, postbackBody, Signer } from "../../scripts/load_postbacks.ts";
import { seedConsoleKv } from "../../scripts/load_processes.ts";
import { books, consoleProcess } from "./_load_books.ts";

const ITEMS = 100;

/**
 * Sends signed postbacks of `items` items from `workers` loops, each to the
 * next of `urls`, until `stop` resolves or a connection fails. Resolves with
 * the ids answered 200 and the count of other answers.
 */
async function load(
  urls: string[],
  signer: Signer,
  ref: string,
  options: { workers: number; items: number; stop: Promise<void> },
): Promise<{ answered: Set<string>; byTarget: number[]; other: number }> {
  const answered = new Set<string>();
  const byTarget = urls.map(() => 0);
  let other = 0;
  let stopped = false;
  options.stop.then(() => stopped = true);
  let next = 0;
  const worker = async (w: number) => {
    for (let n = 0; !stopped; n++) {
      const id = `w${w}-${n}`;
      const target = next++ % urls.length;
      try {
        const res = await fetch(urls[target], {
          method: "POST",
          headers: { authorization: signer.next(), "content-type": "application/json" },
          body: postbackBody(ref, id, options.items),
        });
        await res.body?.cancel();
        if (res.status === 200) {
          answered.add(id);
          byTarget[target]++;
        } else other++;
      } catch {
        return; // the process was killed: this connection is gone
      }
    }
  };
  await Promise.all(Array.from({ length: options.workers }, (_, w) => worker(w)));
  return { answered, byTarget, other };
}

Deno.test("a console killed mid-load keeps every postback it answered, whole and once, and none in part", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cw-faults-" });
  const kvPath = `${dir}/console.kv`;
  const fixture = loadFixture();
  await seedConsoleKv(kvPath, fixture);
  const signer = new Signer(fixture.community);
  try {
    const first = await consoleProcess(kvPath);
    let killed!: () => void;
    const stop = new Promise<void>((resolve) => killed = resolve);
    const url = `${first.url}/hooks/${fixture.hook.id}`;
    const running = load([url], signer, fixture.ref, { workers: 8, items: ITEMS, stop });
    // Kill once postbacks are flowing, with requests in flight.
    const started = Date.now();
    while ((await books(kvPath, fixture.hook.id)).items.size < 10 && Date.now() - started < 20_000) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await first.kill();
    killed();
    const { answered } = await running;
    assert.ok(answered.size > 0, "no postback was answered before the kill");

    // The KV opens again and the console serves.
    const again = await consoleProcess(kvPath);
    try {
      const health = await fetch(`${again.url}/healthz`);
      await health.body?.cancel();
      assert.equal(health.status, 200);
    } finally {
      await again.stop();
    }
    const { items, repeats } = await books(kvPath, fixture.hook.id);
    assert.equal(repeats, 0, "an item was stored twice");
    for (const id of answered) assert.equal(items.get(id), ITEMS, `postback ${id} answered 200`);
    for (const [id, count] of items) assert.equal(count, ITEMS, `postback ${id} is stored in part`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two consoles on one KV file both serve under load, and the books balance", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cw-faults-" });
  const kvPath = `${dir}/console.kv`;
  const fixture = loadFixture();
  await seedConsoleKv(kvPath, fixture);
  const signer = new Signer(fixture.community);
  const consoles = [await consoleProcess(kvPath), await consoleProcess(kvPath)];
  try {
    const urls = consoles.map((c) => `${c.url}/hooks/${fixture.hook.id}`);
    const stop = new Promise<void>((resolve) => setTimeout(resolve, 2000));
    const { answered, byTarget, other } = await load(urls, signer, fixture.ref, { workers: 16, items: 1, stop });
    for (const c of consoles) await c.stop();
    assert.equal(other, 0, "a postback was not answered 200");
    assert.ok(byTarget.every((n) => n > 0), `each console served: ${byTarget}`);
    const { items, repeats } = await books(kvPath, fixture.hook.id);
    assert.equal(repeats, 0, "a postback was stored twice");
    for (const id of answered) assert.equal(items.get(id), 1, `postback ${id} answered 200 is stored`);
  } finally {
    for (const c of consoles) await c.stop().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});
