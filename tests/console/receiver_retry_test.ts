// The console's receiver as the platform meets it after a crash and under
// same-millisecond signing, in separate processes on one KV file (issue 25,
// items 2 and 3): every postback cut by a kill -9 and sent again at once is
// stored once, and no answer says "duplicate" for a postback that is not
// stored; postbacks signed in one millisecond for two hooks are both stored,
// by two consoles at once.

import assert from "node:assert/strict";
import { type Community, createWebhooks, signJiveExtn } from "../../webhooks/mod.ts";
import { loadFixture, postbackBody } from "../../scripts/load_postbacks.ts";
import { seedConsoleKv } from "../../scripts/load_processes.ts";
import { books, consoleProcess } from "./_load_books.ts";

const ITEMS = 20;

/** Headers of one community with timestamps that never repeat and stay near now. */
function signerOf(community: Community) {
  let last = 0;
  return () => {
    last = Math.max(Date.now(), last + 1);
    return signJiveExtn(
      {
        clientId: String(community.clientId),
        jiveUrl: String(community.baseUrl),
        tenantId: community.tenantId,
        timestamp: last,
      },
      String(community.clientSecret),
    );
  };
}

Deno.test("after a kill -9 under load, the platform's immediate retry of every cut postback is stored once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cw-retry-" });
  const kvPath = `${dir}/console.kv`;
  const fixture = loadFixture();
  await seedConsoleKv(kvPath, fixture);
  const sign = signerOf(fixture.community);
  try {
    const first = await consoleProcess(kvPath);
    const url = `${first.url}/hooks/${fixture.hook.id}`;
    const answers = new Map<string, string[]>();
    const cut: { id: string; authorization: string; body: string }[] = [];
    let stopped = false;
    const send = async (target: string, id: string, authorization: string, body: string) => {
      const res = await fetch(target, { method: "POST", headers: { authorization }, body });
      const text = await res.text();
      answers.set(id, [...(answers.get(id) ?? []), `${res.status} ${text}`]);
      return res.status;
    };
    const worker = async (w: number) => {
      for (let n = 0; !stopped; n++) {
        const id = `w${w}-${n}`;
        const authorization = await sign();
        const body = postbackBody(fixture.ref, id, ITEMS);
        try {
          await send(url, id, authorization, body);
        } catch {
          cut.push({ id, authorization, body }); // no answer: the process died with it in flight
          return;
        }
      }
    };
    const running = Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
    const started = Date.now();
    while ((await books(kvPath, fixture.hook.id)).items.size < 20 && Date.now() - started < 30_000) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await first.kill();
    stopped = true;
    await running;
    assert.ok(cut.length > 0, "the kill cut no postback");

    // The platform retries every cut postback at once, and again while it is not answered 200.
    const again = await consoleProcess(kvPath);
    try {
      const target = `${again.url}/hooks/${fixture.hook.id}`;
      await Promise.all(cut.map(async ({ id, authorization, body }) => {
        for (let attempt = 0; attempt < 50; attempt++) {
          if (await send(target, id, authorization, body) === 200) return;
          await new Promise((r) => setTimeout(r, 100));
        }
        assert.fail(`postback ${id} was never answered 200: ${answers.get(id)}`);
      }));
    } finally {
      await again.stop();
    }
    const { items, repeats } = await books(kvPath, fixture.hook.id);
    assert.equal(repeats, 0, "an item was stored twice");
    for (const [id, said] of answers) {
      if (said.some((a) => a.startsWith("200 "))) assert.equal(items.get(id), ITEMS, `${id} answered ${said}`);
    }
    for (const { id } of cut) assert.equal(items.get(id), ITEMS, `cut postback ${id} (${answers.get(id)})`);
    for (const [id, count] of items) assert.equal(count, ITEMS, `postback ${id} is stored in part`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two consoles on one KV file store both postbacks signed in one millisecond for two hooks", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cw-same-ms-" });
  const kvPath = `${dir}/console.kv`;
  const fixture = loadFixture();
  await seedConsoleKv(kvPath, fixture);
  const ref2 = fixture.ref.replace(/\d+$/, "9002");
  const hook2 = { ...fixture.hook, id: "01LOADTESTHOOK000000000002", entity: { ...fixture.hook.entity, id: "9002" } };
  hook2.entity.resources = { self: { ref: ref2 } };
  const kv = await Deno.openKv(kvPath);
  await createWebhooks(kv).save(hook2);
  kv.close();
  const sign = signerOf(fixture.community);
  const consoles = [await consoleProcess(kvPath), await consoleProcess(kvPath)];
  try {
    const rounds = 40;
    const said: string[] = [];
    for (let round = 0; round < rounds; round += 4) {
      await Promise.all([0, 1, 2, 3].map(async (k) => {
        const authorization = await sign(); // one header, two postbacks: the platform signs no body
        const sends = [[fixture.hook.id, fixture.ref], [hook2.id, ref2]].map(async ([hookId, ref], i) => {
          const res = await fetch(`${consoles[i].url}/hooks/${hookId}`, {
            method: "POST",
            headers: { authorization },
            body: postbackBody(ref, `r${round + k}-${i}`),
          });
          said.push(`${res.status} ${await res.text()}`);
        });
        await Promise.all(sends);
      }));
    }
    assert.deepEqual(said.filter((a) => a !== '200 {"received":1}'), [], "every postback is delivered");
    const [one, two] = [await books(kvPath, fixture.hook.id), await books(kvPath, hook2.id)];
    assert.equal(one.items.size, rounds);
    assert.equal(two.items.size, rounds);
    assert.equal(one.repeats + two.repeats, 0);
    // A header replayed to a hook it reached is still refused, whatever the body, by either console.
    const authorization = await sign();
    const first = await fetch(`${consoles[0].url}/hooks/${fixture.hook.id}`, {
      method: "POST",
      headers: { authorization },
      body: postbackBody(fixture.ref, "replayed"),
    });
    assert.equal(await first.text(), '{"received":1}');
    const replay = await fetch(`${consoles[1].url}/hooks/${fixture.hook.id}`, {
      method: "POST",
      headers: { authorization },
      body: postbackBody(fixture.ref, "forged"),
    });
    assert.deepEqual(await replay.json(), { received: 0, duplicate: true });
  } finally {
    for (const c of consoles) await c.stop().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});
