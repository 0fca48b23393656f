// The topology past one machine (issue 26 item 3): two console processes on
// one KV served over KV Connect (the test server of kvconnect/, denokv's
// limits). Under load the books balance, and the live view of each console
// shows the deliveries the other one stored.

import assert from "node:assert/strict";
import { Signer } from "../../scripts/load_postbacks.ts";
import { countDeliveries } from "../../scripts/load_processes.ts";
import { type Client, signIn } from "./_helpers.ts";
import { followDeliveries, postFixture, startRemoteConsoles } from "./_remote.ts";

/** Follows a console's live stream of deliveries; `seqs` fills as they arrive. */
function follow(origin: string, client: Client): { seqs: Set<number>; ready: Promise<void>; stop(): void } {
  const seqs = new Set<number>();
  const { ready, stop } = followDeliveries(origin, client, (data) => seqs.add(data.seq));
  return { seqs, ready, stop };
}

Deno.test("two consoles on one KV over KV Connect: the books balance and each live view shows the other's deliveries", async () => {
  const remote = await startRemoteConsoles("cw-remote-");
  const { server, fixture, consoles } = remote;
  const streams: { seqs: Set<number>; ready: Promise<void>; stop(): void }[] = [];
  try {
    for (const c of consoles) streams.push(follow(c.url, await signIn(c.url)));
    await Promise.all(streams.map((s) => s.ready));

    const signer = new Signer(fixture.community);
    const answered = [new Set<string>(), new Set<string>()];
    let other = 0;
    const until = Date.now() + 2000;
    await Promise.all(Array.from({ length: 8 }, async (_, w) => {
      for (let n = 0; Date.now() < until; n++) {
        const target = (w + n) % 2;
        const id = `w${w}-${n}`;
        if (await postFixture(consoles[target].url, fixture, signer, id) === 200) answered[target].add(id);
        else other++;
      }
    }));
    assert.equal(other, 0, "every postback was answered 200");
    assert.ok(answered.every((a) => a.size > 0), `each console served: ${answered.map((a) => a.size)}`);

    const { total, titles } = await countDeliveries(server.url, fixture.hook.id);
    assert.equal(total, titles.size, "no postback stored twice");
    for (const id of [...answered[0], ...answered[1]]) assert.ok(titles.has(`Load ${id}`), `${id} is stored`);

    // Each live view has every stored delivery, those of the other console included.
    const stored = total;
    const deadline = Date.now() + 15_000;
    while (streams.some((s) => s.seqs.size < stored) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const [i, s] of streams.entries()) {
      assert.equal(s.seqs.size, stored, `console ${i}'s live view saw ${s.seqs.size} of ${stored}`);
    }
  } finally {
    for (const s of streams) s.stop();
    await remote.close();
  }
});
