// Two receiver processes on one KV file are sent the same signed postback at
// the same moment: the replay claim lets exactly one of them hand it on.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { type Child, spawnChild, WEBHOOKS_MOD, writeChildScript } from "../_child.ts";
import { item, seed, signA } from "../_receiver.ts";

// Child: a receiver over the shared KV file on 127.0.0.1, port 0. It prints
// "port <n>", then "delivered <postbackId> <index>" for each item it hands on.
const RECEIVER = `
import { createReceiver, createWebhooks } from ${JSON.stringify(WEBHOOKS_MOD)};
const kv = await Deno.openKv(Deno.args[0]);
const receiver = createReceiver(createWebhooks(kv), {
  onPostback: async ({ postbackId, index }) => {
    await new Promise((resolve) => setTimeout(resolve, 5)); // widen the race
    console.log("delivered " + postbackId + " " + index);
  },
});
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log("port " + port) }, receiver.handle);
await server.finished;
`;

Deno.test("two receiver processes on one KV file hand a header sent to both at once on once in total", async () => {
  const dir = await Deno.makeTempDir({ prefix: "receiver_processes_" });
  const kvPath = `${dir}/kv.sqlite3`;
  const children: Child[] = [];
  try {
    const kv = await Deno.openKv(kvPath);
    await seed(createWebhooks(kv));
    kv.close();
    const script = await writeChildScript(dir, "receiver.ts", RECEIVER);
    children.push(spawnChild(script, [kvPath]), spawnChild(script, [kvPath]));
    const ports = await Promise.all(children.map(async (child) => (await child.waitFor(/^port \d+$/)).split(" ")[1]));
    const rounds = 20;
    const answers: unknown[] = [];
    for (let round = 0; round < rounds; round++) {
      const authorization = await signA(Date.now() - round);
      const body = JSON.stringify([item(), item()]);
      const both = await Promise.all(ports.map(async (port) => {
        const res = await fetch(`http://127.0.0.1:${port}/hooks`, { method: "POST", headers: { authorization }, body });
        return [res.status, await res.json()];
      }));
      answers.push(...both);
    }
    const accepted = answers.filter((a) => JSON.stringify(a) === JSON.stringify([200, { received: 2 }]));
    const duplicates = answers.filter((a) =>
      JSON.stringify(a) === JSON.stringify([200, { received: 0, duplicate: true }])
    );
    // The other copy found the claim done (a duplicate) or still held (409, to be retried).
    const held = answers.filter((a) => JSON.stringify(a) === JSON.stringify([409, { error: "In progress" }]));
    assert.equal(accepted.length, rounds, JSON.stringify(answers));
    assert.equal(duplicates.length + held.length, rounds, JSON.stringify(answers));
    // Wait for the winners' output, then count every delivery of both processes.
    const deliveredLines = () =>
      children.flatMap((child) => child.lines.filter((line) => line.startsWith("delivered ")));
    for (let i = 0; i < 100 && deliveredLines().length < 2 * rounds; i++) await new Promise((r) => setTimeout(r, 20));
    const delivered = deliveredLines();
    assert.equal(delivered.length, 2 * rounds);
    assert.equal(new Set(delivered).size, 2 * rounds);
  } finally {
    await Promise.all(children.map((child) => child.kill()));
    await Deno.remove(dir, { recursive: true });
  }
});
