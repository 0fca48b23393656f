// The topology past one machine (issue 26 item 3): two console processes on
// one KV served over KV Connect (the test server of kvconnect/, denokv's
// limits). Under load the books balance, and the live view of each console
// shows the deliveries the other one stored.

import assert from "node:assert/strict";
import { startKvConnectServer } from "../../kvconnect/mod.ts";
import { loadFixture, postbackBody, Signer } from "../../scripts/load_postbacks.ts";
import { countDeliveries, seedConsoleKv, type Started, startProcess } from "../../scripts/load_processes.ts";
import { type Client, signIn } from "./_helpers.ts";
import { TEST_TOKEN } from "../kvconnect/token.ts";

function remoteConsole(url: string): Promise<Started> {
  return startProcess(["console/main.ts"], {
    PORT: "0",
    HOST: "127.0.0.1",
    KV_PATH: url,
    DENO_KV_ACCESS_TOKEN: TEST_TOKEN,
    SANDBOX: "on",
    DELIVERIES_RETAIN: "100000",
    RATE_LIMIT_RECEIVER: "0",
  });
}

/** Follows a console's live stream of deliveries; `seqs` fills as they arrive. */
function follow(origin: string, client: Client): { seqs: Set<number>; stop(): void } {
  const seqs = new Set<number>();
  const done = new AbortController();
  (async () => {
    const res = await fetch(`${origin}/deliveries/events`, {
      headers: { cookie: `cw_session=${client.cookies.get("cw_session")}` },
      signal: done.signal,
    });
    assert.equal(res.status, 200);
    let buffer = "";
    for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^data: (.*)$/m.exec(event)?.[1];
        if (/^event: delivery$/m.test(event) && data) seqs.add(JSON.parse(data).seq);
      }
    }
  })().catch(() => {});
  return { seqs, stop: () => done.abort() };
}

Deno.test("two consoles on one KV over KV Connect: the books balance and each live view shows the other's deliveries", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cw-remote-" });
  const server = await startKvConnectServer({ path: `${dir}/remote.kv`, token: TEST_TOKEN });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const fixture = loadFixture();
  const consoles: Started[] = [];
  const streams: { seqs: Set<number>; stop(): void }[] = [];
  try {
    await seedConsoleKv(server.url, fixture);
    consoles.push(await remoteConsole(server.url), await remoteConsole(server.url));
    for (const c of consoles) streams.push(follow(c.url, await signIn(c.url)));
    await new Promise((r) => setTimeout(r, 300)); // the streams are open

    const signer = new Signer(fixture.community);
    const answered = [new Set<string>(), new Set<string>()];
    let other = 0;
    const until = Date.now() + 2000;
    await Promise.all(Array.from({ length: 8 }, async (_, w) => {
      for (let n = 0; Date.now() < until; n++) {
        const target = (w + n) % 2;
        const id = `w${w}-${n}`;
        const res = await fetch(`${consoles[target].url}/hooks/${fixture.hook.id}`, {
          method: "POST",
          headers: { authorization: signer.next(), "content-type": "application/json" },
          body: postbackBody(fixture.ref, id),
        });
        await res.body?.cancel();
        if (res.status === 200) answered[target].add(id);
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
    for (const c of consoles) await c.stop().catch(() => {});
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
