// Live-view completeness past one machine (issue 41): two console processes
// on one KV served over KV Connect, under load from concurrent clients to
// both, and a live event stream (the live page's `/deliveries/events`) of
// one of them. Each process numbers its rows on its own clock, so a commit
// may land below a number the stream already announced: the stream still
// shows every delivery of both processes, within 2 s of its answer, once.

import assert from "node:assert/strict";
import { Signer } from "../../../scripts/load_postbacks.ts";
import { countDeliveries } from "../../../scripts/load_processes.ts";
import { type Client, signIn } from "../_helpers.ts";
import { followDeliveries, postFixture, startRemoteConsoles } from "../_remote.ts";
import { DeliveryStore } from "../../../console/log/mod.ts";

const POSTBACKS = 300;
const CLIENTS = 12;

/** Follows a console's live stream: each delivery event's title id and when it came, every one (repeats too). */
function follow(origin: string, client: Client): { events: { id: string; at: number }[]; stop(): void } {
  const events: { id: string; at: number }[] = [];
  const { stop } = followDeliveries(origin, client, (data) => events.push({ id: data.id, at: Date.now() }));
  return { events, stop };
}

Deno.test("two consoles under load on one remote KV: a live stream shows every delivery of both within 2 s, once", async () => {
  const remote = await startRemoteConsoles("cw-live-");
  const { server, fixture, consoles } = remote;
  let stream: ReturnType<typeof follow> | undefined;
  try {
    stream = follow(consoles[0].url, await signIn(consoles[0].url));
    await new Promise((r) => setTimeout(r, 300)); // the stream is open

    const signer = new Signer(fixture.community);
    /** When each postback was answered 200, by its id. */
    const answeredAt = new Map<string, number>();
    const served = [0, 0];
    let other = 0;
    let next = 0;
    await Promise.all(Array.from({ length: CLIENTS }, async (_, w) => {
      for (let n = next++; n < POSTBACKS; n = next++) {
        const target = (w + n) % 2;
        const id = `p${n}`;
        if (await postFixture(consoles[target].url, fixture, signer, id) === 200) {
          answeredAt.set(id, Date.now());
          served[target]++;
        } else other++;
      }
    }));
    assert.equal(other, 0, "every postback was answered 200");
    assert.ok(served.every((n) => n > 0), `each console served: ${served}`);

    // The stored deliveries, by id, with the postback each holds (its title is "Load {id}").
    const { total, titles } = await countDeliveries(server.url, fixture.hook.id);
    assert.equal(total, POSTBACKS, "each postback stored once");
    assert.equal(titles.size, POSTBACKS);

    const deadline = Math.max(...answeredAt.values()) + 2_000;
    while (stream.events.length < POSTBACKS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300)); // a repeat, if the stream sent one, would come now
    const ids = stream.events.map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length, "no delivery announced twice");
    assert.equal(ids.length, POSTBACKS, `the stream announced ${ids.length} of ${POSTBACKS} deliveries`);
    // Each within 2 s of its answer: the delivery ids name no postback, so the stream's order is matched to
    // the answers' through the stored rows (each id's title).
    const kv = await Deno.openKv(server.url);
    try {
      const views = await new DeliveryStore(kv).list({ hookId: fixture.hook.id, limit: 10_000 });
      const titles = new Map(views.map((view) => [view.id, view.title]));
      const late: string[] = [];
      for (const { id, at } of stream.events) {
        const postback = /^Load (p\d+)$/.exec(titles.get(id) ?? "")?.[1];
        assert.ok(postback, `delivery ${id} holds a postback of the test`);
        const delay = at - answeredAt.get(postback)!;
        if (delay > 2_000) late.push(`${postback}: ${delay} ms`);
      }
      assert.deepEqual(late, [], "every delivery shown within 2 s of its answer");
    } finally {
      kv.close();
    }
  } finally {
    stream?.stop();
    await remote.close();
  }
});
