// Two console processes on one KV over KV Connect, one killed (SIGKILL)
// while both receive: the other takes every postback again (the platform
// retries what it got no answer for), so that every postback either one
// answered 200 is stored once, none twice, and the survivor's live view
// shows every stored delivery, the killed one's included.

import assert from "node:assert/strict";
import { postbackBody, Signer } from "../../scripts/load_postbacks.ts";
import { countDeliveries } from "../../scripts/load_processes.ts";
import { DeliveryStore } from "../../console/log/mod.ts";
import { signIn } from "./_helpers.ts";
import { followDeliveries, startRemoteConsoles } from "./_remote.ts";

const POSTBACKS = 240;
const KILL_AFTER = 60;
const AT_ONCE = 8;

Deno.test("two consoles over KV Connect, one killed mid-load: the survivor takes every postback again, none lost or twice", async () => {
  const remote = await startRemoteConsoles("cw-remote-kill-");
  const { server, fixture, consoles } = remote;
  const seen = new Set<number>();
  const stream = followDeliveries(consoles[1].url, await signIn(consoles[1].url), (d) => seen.add(d.seq));
  try {
    await stream.ready;
    const signer = new Signer(fixture.community);
    const headers = Array.from({ length: POSTBACKS }, () => signer.next());
    const send = async (origin: string, i: number) => {
      const res = await fetch(`${origin}/hooks/${fixture.hook.id}`, {
        method: "POST",
        headers: { authorization: headers[i], "content-type": "application/json" },
        body: postbackBody(fixture.ref, `k${i}`),
      });
      return [res.status, await res.json()] as const;
    };

    const answered = new Set<number>();
    let killing: Promise<void> | null = null;
    let next = 0;
    await Promise.all(Array.from({ length: AT_ONCE }, async () => {
      while (!killing && next < POSTBACKS) {
        const i = next++;
        try {
          const [status, body] = await send(consoles[i % 2].url, i);
          assert.equal(status, 200, JSON.stringify(body));
          assert.deepEqual(body, { received: 1 });
          answered.add(i);
        } catch (error) {
          if (!killing) throw error;
        }
        if (answered.size >= KILL_AFTER && !killing) killing = consoles[0].kill();
      }
    }));
    await killing;

    next = 0;
    await Promise.all(Array.from({ length: AT_ONCE }, async () => {
      while (next < POSTBACKS) {
        const i = next++;
        const [status, body] = await send(consoles[1].url, i);
        assert.equal(status, 200, JSON.stringify(body));
        if (answered.has(i)) assert.deepEqual(body, { received: 0, duplicate: true }, `k${i}`);
      }
    }));

    const { total, titles } = await countDeliveries(server.url, fixture.hook.id);
    assert.equal(total, titles.size, "no postback stored twice");
    assert.equal(total, POSTBACKS, "every postback stored");
    const kv = await Deno.openKv(server.url);
    const logged = await new DeliveryStore(kv).list({ hookId: fixture.hook.id, limit: 100_000 }).finally(() =>
      kv.close()
    );
    const missing = () => logged.filter((v) => !seen.has(v.seq));
    const deadline = Date.now() + 15_000;
    while (missing().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(missing(), [], "the survivor's live view shows every logged row, the killed console's too");
  } finally {
    stream.stop();
    await remote.close();
  }
});
