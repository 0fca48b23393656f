// Secret rotation across two processes on one KV file: this process (A)
// saves a community's new client secret while a receiver in a child process
// (B), its cache warm with the old secret, keeps accepting a postback signed
// with the old secret just before the change, accepts the new secret's at
// once, and refuses the old secret once the rotation's validUntil has passed
// by its own clock.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { type Child, spawnChild, WEBHOOKS_MOD, writeChildScript } from "../_child.ts";
import { item, SECRET_A, seed, SIGN_A, signA } from "../_receiver.ts";

const NEW_SECRET = btoa("community A's new client secret!");
const NEVER_SECRET = btoa("a secret community A never had..");

// Child B: a receiver in write mode over the shared KV file on 127.0.0.1, port
// 0. It prints "port <n>"; a stdin line "skew <ms>" moves its clock, answered
// "skew <ms> set".
const RECEIVER = `
import { createReceiver, createWebhooks } from ${JSON.stringify(WEBHOOKS_MOD)};
const kv = await Deno.openKv(Deno.args[0]);
let skew = 0;
const receiver = createReceiver(createWebhooks(kv), {
  write: (postback, atomic) => atomic.set(["inbox", postback.postbackId, postback.index], postback.seq),
  sequence: ["seq"],
  now: () => Date.now() + skew,
});
(async () => {
  let text = "";
  for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    text += chunk;
    const lines = text.split("\\n");
    text = lines.pop();
    for (const line of lines) {
      const [word, ms] = line.split(" ");
      if (word === "skew") {
        skew = Number(ms);
        console.log("skew " + ms + " set");
      }
    }
  }
})();
Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log("port " + port) }, receiver.handle);
`;

Deno.test("process A rotates the secret while process B, cache warm, accepts the old secret's postback, then the new one's", async () => {
  const dir = await Deno.makeTempDir({ prefix: "secret_rotation_processes_" });
  const kvPath = `${dir}/kv.sqlite3`;
  let child: Child | undefined;
  const kv = await Deno.openKv(kvPath);
  try {
    const hooks = createWebhooks(kv);
    await seed(hooks);
    child = spawnChild(await writeChildScript(dir, "receiver.ts", RECEIVER), [kvPath], { stdin: true });
    const port = (await child.waitFor(/^port \d+$/, 60_000)).split(" ")[1];
    const send = async (authorization: string): Promise<number> => {
      const res = await fetch(`http://127.0.0.1:${port}/hooks`, {
        method: "POST",
        headers: { authorization },
        body: JSON.stringify([item()]),
      });
      await res.body?.cancel();
      return res.status;
    };
    const old = (timestamp: number) => signA(timestamp, SIGN_A, SECRET_A);
    const fresh = (timestamp: number) => signA(timestamp, SIGN_A, NEW_SECRET);

    // B verifies community A with its old secret: its cache is warm.
    assert.equal(await send(await old(Date.now() - 3)), 200);
    const signedBefore = await old(Date.now() - 2);
    const alsoBefore = await old(Date.now() - 1);
    // A saves the new secret.
    const community = (await hooks.communities.findByTenantID("tenant-a"))!;
    await hooks.communities.save({ ...community, clientSecret: NEW_SECRET });
    assert.equal(await send(signedBefore), 200);
    assert.equal(await send(alsoBefore), 200);
    assert.equal(await send(await fresh(Date.now())), 200);
    assert.equal(await send(await signA(Date.now() + 1, SIGN_A, NEVER_SECRET)), 401);
    const stored = await Array.fromAsync(kv.list({ prefix: ["inbox"] }));
    assert.equal(stored.length, 4);

    // B's clock past the rotation's validUntil: the old secret is refused, the new one still verifies.
    const until = Date.parse((await hooks.communities.secretRotation("tenant-a"))!.validUntil);
    const skew = until + 1_000 - Date.now();
    await child.send(`skew ${skew}`);
    await child.waitFor(`skew ${skew} set`);
    assert.equal(await send(await old(Date.now() + skew - 500)), 401);
    assert.equal(await send(await fresh(Date.now() + skew - 499)), 200);
    assert.equal((await Array.fromAsync(kv.list({ prefix: ["inbox"] }))).length, 5);
  } finally {
    await child?.kill();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
