// The dead letters of "Forward to" read only what the page shows: a page of
// the hook's dead letters (by cursor), and for Redeliver the one named,
// however many dead letters other hooks left at a destination of every hook.

import assert from "node:assert/strict";
import { createApp } from "../../console/app.ts";
import { createRelay } from "../../webhooks/mod.ts";
import { deadLetter, storeDead } from "./_dead_letters.ts";
import { connectSandbox, csrfOf, NO_RATE_LIMITS, registerHook, signIn } from "./_helpers.ts";

/** Wraps `raw` so that it counts the dead-letter entries (`relay_dead...` keys) it reads. */
function countingKv(raw: Deno.Kv): { kv: Deno.Kv; read: { dead: number } } {
  const read = { dead: 0 };
  const isDead = (key: Deno.KvKey) => String(key[0]).startsWith("relay_dead");
  const kv = new Proxy(raw, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (prop === "list") {
        return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
          const iter = target.list(selector, options);
          const next = iter.next.bind(iter);
          iter.next = async () => {
            const result = await next();
            if (!result.done && isDead(result.value.key)) read.dead++;
            return result;
          };
          return iter;
        };
      }
      if (prop === "getMany") {
        return async (keys: Deno.KvKey[], options?: { consistency?: Deno.KvConsistencyLevel }) => {
          const found = await target.getMany(keys, options);
          read.dead += found.filter((e) => isDead(e.key)).length;
          return found;
        };
      }
      if (prop === "get") {
        return async (key: Deno.KvKey, options?: { consistency?: Deno.KvConsistencyLevel }) => {
          if (isDead(key)) read.dead++;
          return await target.get(key, options);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv, read };
}

Deno.test("Forward to: a page and a Redeliver read the hook's dead letters shown, not those of every hook at the destination", async () => {
  const raw = await Deno.openKv(":memory:");
  const { kv, read } = countingKv(raw);
  let handler: (r: Request) => Response | Promise<Response> = () => new Response("starting", { status: 503 });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (r) => handler(r));
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const app = createApp({
    buildAssets: false,
    allowPrivateNetwork: true,
    rateLimits: NO_RATE_LIMITS,
    kv,
    publicUrl: origin,
  });
  try {
    await app.ready;
    handler = app.fetch;
    const client = await signIn(origin);
    await connectSandbox(client, origin);
    const hookId = await registerHook(client, origin);
    const everyHook = await createRelay(raw).destinations.add({ url: "https://app.example/all" });
    const letter = (i: number, hook: string) => deadLetter(i, everyHook.id, hook);
    for (let i = 0; i < 600; i++) await storeDead(raw, letter(i, "another hook"));
    for (let i = 600; i < 705; i++) await storeDead(raw, letter(i, hookId));

    const path = `/webhooks/${hookId}/forward`;
    read.dead = 0;
    const first = await client.text(path, 200);
    assert.ok(read.dead <= 2 * 100 + 2, `a page read ${read.dead} dead-letter entries`);
    const ids = [...first.matchAll(/data-entry="([^"]+)"/g)].map((m) => m[1]);
    assert.equal(ids.length, 100);
    assert.equal(ids[0], letter(704, hookId).id); // newest first
    const older = /id="forward-dead-older" href="([^"]+)"/.exec(first)?.[1].replaceAll("&amp;", "&");
    assert.ok(older, "a link to the older dead letters");
    const second = await client.text(older, 200);
    const rest = [...second.matchAll(/data-entry="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(rest, [604, 603, 602, 601, 600].map((i) => letter(i, hookId).id));
    assert.doesNotMatch(second, /forward-dead-older/);
    const bad = await client.fetch(`${path}?dead=!!!`);
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /That page of dead letters is not there/);

    // Redeliver reads the letter it names: another hook's is gone from this page, this hook's is sent again once.
    const csrf = csrfOf(first);
    read.dead = 0;
    const theirs = await client.post(`${path}/redeliver/${letter(0, "another hook").id}`, { _csrf: csrf });
    await theirs.body?.cancel();
    assert.equal(theirs.headers.get("location"), `${path}?notice=gone`);
    const [a, b] = await Promise.all([
      client.post(`${path}/redeliver/${ids[0]}`, { _csrf: csrf }),
      client.post(`${path}/redeliver/${ids[0]}`, { _csrf: csrf }),
    ]);
    await a.body?.cancel();
    await b.body?.cancel();
    assert.deepEqual(
      [a.headers.get("location"), b.headers.get("location")].sort(),
      [`${path}?notice=gone`, `${path}?notice=redelivered`],
    );
    assert.ok(read.dead <= 12, `three Redelivers read ${read.dead} dead-letter entries`);
    assert.equal((await raw.get(["relay_dead", ids[0]])).value, null);
    assert.equal((await raw.get(["relay_dead", letter(0, "another hook").id])).versionstamp !== null, true);

    // Their destination removed by a removal killed after its commit (which deletes the letters after it, and
    // housekeeping later), the letters left are shown by no page: it says so rather than "None" with a link on.
    await raw.atomic().delete(["relay_destination", everyHook.id]).sum(["relay_destinations_version"], 1n)
      .set(["relay_removed", everyHook.id], { pinned: false, dropped: false }, { expireIn: 86_400_000 }).commit();
    const orphaned = await client.text(path, 200);
    assert.match(orphaned, /id="forward-no-dead-here"/);
    assert.doesNotMatch(orphaned, /data-entry=/);
  } finally {
    await app.close();
    await server.shutdown();
    raw.close();
  }
});
