/**
 * The console as a process, killed (SIGKILL) while sixteen connections send
 * it signed postbacks, then started again on the same KV file and sent
 * every postback again, as the platform retries what it got no answer for:
 * every postback answered 200 before the kill answers "duplicate" after it,
 * the log holds each postback once, and the hook's page, its summary and
 * the whole log count the same. And the same with a second console on the
 * file receiving beside it, which then takes every postback again.
 */

import assert from "node:assert/strict";
import { DeliveryStore } from "../../console/log/mod.ts";
import { createWebhooks, signJiveExtn } from "../../webhooks/mod.ts";
import { consoleCommand } from "./_main_process.ts";

const SECRET = btoa(`client secret ${crypto.randomUUID()}`);
const COMMUNITY = { name: "Acme", tenantId: "tenant-acme", baseUrl: "https://acme.example", clientId: "client-acme" };
const REF = "https://acme.example/api/core/v3/webhooks/41";
const POSTBACKS = 400;
const KILL_AFTER = 120;
const AT_ONCE = 16;

/** Starts the console on `kvPath`, keeping every row of this test (the default keeps 500); resolves its origin and the child once it prints its start line. */
async function start(kvPath: string): Promise<{ origin: string; child: Deno.ChildProcess }> {
  const child = consoleCommand({ PORT: "0", HOST: "127.0.0.1", KV_PATH: kvPath, DELIVERIES_RETAIN: "10000" }).spawn();
  void child.stderr.pipeTo(new WritableStream());
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/listening on (\S+)/.test(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the console exited: ${text}`);
    text += value;
  }
  void (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});
  return { origin: /listening on (\S+)/.exec(text)![1], child };
}

async function killWhileReceiving(survivor: boolean): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "console_kill_" });
  const kvPath = `${dir}/console.kv`;
  const setup = await Deno.openKv(kvPath);
  const hooks = createWebhooks(setup);
  await hooks.communities.save({ ...COMMUNITY, clientSecret: SECRET });
  await hooks.save({ id: "hook-41", tenantId: COMMUNITY.tenantId, entity: { resources: { self: { ref: REF } } } });
  setup.close();

  // Distinct headers (one ms apart): distinct postbacks, of one or two items.
  const base = Date.now() - 60_000;
  const postbacks = await Promise.all(Array.from({ length: POSTBACKS }, async (_, i) => ({
    authorization: await signJiveExtn({ ...COMMUNITY, jiveUrl: COMMUNITY.baseUrl, timestamp: base + i }, SECRET),
    body: JSON.stringify(
      Array.from({ length: 1 + i % 2 }, (_, k) => ({
        webhook: REF,
        activity: { verb: "jive:created", title: `postback ${i} item ${k}` },
      })),
    ),
  })));
  const send = async (origin: string, i: number) => {
    const res = await fetch(`${origin}/hooks/hook-41`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: postbacks[i].authorization },
      body: postbacks[i].body,
    });
    return [res.status, await res.json()] as const;
  };

  const first = await start(kvPath);
  // With a survivor, a second console on the same file receives half of the postbacks beside the first, and every
  // postback again after the kill; else the first is started again.
  const other = survivor ? await start(kvPath) : null;
  const answered = new Set<number>();
  let killed = false;
  let next = 0;
  await Promise.all(Array.from({ length: AT_ONCE }, async () => {
    while (!killed && next < POSTBACKS) {
      const i = next++;
      try {
        const [status, body] = await send(other && i % 2 ? other.origin : first.origin, i);
        assert.equal(status, 200, JSON.stringify(body));
        assert.deepEqual(body, { received: 1 + i % 2 });
        answered.add(i);
      } catch (error) {
        if (!killed) throw error;
      }
      if (answered.size === KILL_AFTER && !killed) {
        killed = true;
        first.child.kill("SIGKILL");
      }
    }
  }));
  await first.child.status;
  assert.ok(answered.size >= KILL_AFTER, `${answered.size} answered before the kill`);

  const second = other ?? await start(kvPath);
  try {
    // Every postback again, sixteen at once: those answered before the kill are duplicates.
    next = 0;
    await Promise.all(Array.from({ length: AT_ONCE }, async () => {
      while (next < POSTBACKS) {
        const i = next++;
        const [status, body] = await send(second.origin, i);
        assert.equal(status, 200, JSON.stringify(body));
        if (answered.has(i)) assert.deepEqual(body, { received: 0, duplicate: true }, `postback ${i}`);
      }
    }));
  } finally {
    second.child.kill("SIGTERM");
    await second.child.status;
  }

  // The log, read on the file: each item of each postback once, on the whole log's pages and the hook's.
  const kv = await Deno.openKv(kvPath);
  try {
    const store = new DeliveryStore(kv);
    const items = POSTBACKS + Math.floor(POSTBACKS / 2);
    const read = async (hookId?: string) => {
      const titles: string[] = [];
      let before: number | undefined;
      do {
        const page = await store.page({ hookId, status: "accepted", before, limit: 100 });
        titles.push(...page.values.map((v) => v.title));
        before = page.before;
      } while (before !== undefined);
      return titles;
    };
    for (const hookId of [undefined, "hook-41"]) {
      const titles = await read(hookId);
      assert.equal(new Set(titles).size, titles.length, `no item twice (${hookId ?? "all"})`);
      assert.equal(titles.length, items, `every item once (${hookId ?? "all"})`);
    }
    const stats = await store.stats("hook-41");
    assert.equal(stats.accepted, items, "the hook's summary");
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a console killed while it receives loses no postback it answered 200, and stores none twice", () =>
  killWhileReceiving(false));

Deno.test("a console killed beside another on one KV file: the other takes every postback again, none lost or twice", () =>
  killWhileReceiving(true));
