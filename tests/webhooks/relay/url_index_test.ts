// With `unique` (the console's adds), one URL never gets one hook's postbacks
// from two destinations: the URL index (webhooks/relay/url_index/) checked in
// the commit that adds or changes a destination, across relay objects and
// processes on one KV. Without it, API.md's add takes the same URL twice.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createRelay, type Destination } from "../../../webhooks/mod.ts";
import { seedHooks } from "./fixtures.ts";

const URL_A = "http://127.0.0.1:9/hooks";

/** Opens two KV handles on one temp file (as two processes would), runs `fn`, and cleans up. */
async function withTwoHandles(fn: (a: Deno.Kv, b: Deno.Kv) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  const a = await Deno.openKv(`${dir}/relay.kv`);
  const b = await Deno.openKv(`${dir}/relay.kv`);
  try {
    await seedHooks(a);
    await fn(a, b);
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Pairs of unpinned destinations at one URL that share a hook (absent hookIds: every hook). */
function clashes(list: Destination[]): string[] {
  const out: string[] = [];
  const unpinned = list.filter((d) => !d.pinned);
  for (const [i, x] of unpinned.entries()) {
    for (const y of unpinned.slice(i + 1)) {
      if (x.url !== y.url) continue;
      const shared = x.hookIds === undefined || y.hookIds === undefined ||
        x.hookIds.some((h) => y.hookIds!.includes(h));
      if (shared) out.push(`${x.id} and ${y.id} at ${x.url}`);
    }
  }
  return out;
}

Deno.test("destinations.add() of one URL for one hook by two relays on one KV file at once adds one, the other refused", async () => {
  await withTwoHandles(async (a, b) => {
    const one = createRelay(a, { allowPrivateNetwork: true });
    const two = createRelay(b, { allowPrivateNetwork: true });
    try {
      for (let round = 0; round < 5; round++) {
        const url = `${URL_A}/${round}`;
        const results = await Promise.allSettled([
          one.destinations.add({ url, hookIds: ["h1"], unique: true }),
          two.destinations.add({ url, hookIds: ["h1"], unique: true }),
          one.destinations.add({ url, hookIds: ["h1", "h2"], unique: true }),
          two.destinations.add({ url, unique: true }),
        ]);
        const added = results.filter((r) => r.status === "fulfilled");
        const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
        assert.equal(added.length, 1, `round ${round}`);
        for (const r of refused) {
          assert.ok(r.reason instanceof TypeError);
          assert.match(
            r.reason.message,
            /^Cannot add destination: http:\/\/127\.0\.0\.1:9\/hooks\/\d already receives/,
          );
        }
        assert.equal((await two.destinations.list()).filter((d) => d.url === url).length, 1);
      }
      assert.deepEqual(clashes(await one.destinations.list()), []);
    } finally {
      await one.close();
      await two.close();
    }
  });
});

Deno.test("destinations.add() refuses a URL that already gets the hook's postbacks, however it is spelled", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv, ["h1", "h2", "h3"]);
    const first = await relay.destinations.add({ url: URL_A, hookIds: ["h1"], unique: true });
    await assert.rejects(
      () => relay.destinations.add({ url: "HTTP://127.0.0.1:9/hooks", hookIds: ["h2", "h1"], unique: true }),
      new TypeError(
        `Cannot add destination: ${URL_A} already receives the postbacks of hook 'h1' through destination ` +
          `${first.id}; remove that one, or change its hooks, first`,
      ),
    );
    await assert.rejects(
      () => relay.destinations.add({ url: URL_A, unique: true }),
      /already receives the postbacks of hook 'h1'/,
    );
    // Other hooks at the URL, the hook at another URL, and a pinned destination (listen's) are added.
    const second = await relay.destinations.add({ url: URL_A, hookIds: ["h2"], unique: true });
    await relay.destinations.add({ url: `${URL_A}/other`, hookIds: ["h1"], unique: true });
    await relay.destinations.add({ url: URL_A, hookIds: ["h1"], pinned: true, unique: true });
    // An update that would give the URL a hook twice is refused, the destination kept as it was.
    await assert.rejects(
      () => relay.destinations.update(second.id, { hookIds: ["h1"], unique: true }),
      /^TypeError: Cannot update destination: .* already receives the postbacks of hook 'h1'/,
    );
    await assert.rejects(() => relay.destinations.update(second.id, { hookIds: null, unique: true }), /hook 'h1'/);
    assert.deepEqual((await relay.destinations.get(second.id))?.hookIds, ["h2"]);
    // Enabling or disabling is no change of hooks; a removal or a move frees the URL for the hook.
    assert.equal((await relay.destinations.update(first.id, { enabled: false, unique: true }))?.enabled, false);
    await relay.destinations.update(first.id, { url: `${URL_A}/moved`, unique: true });
    assert.deepEqual((await relay.destinations.update(second.id, { hookIds: ["h1", "h2"], unique: true }))?.hookIds, [
      "h1",
      "h2",
    ]);
    await assert.rejects(
      () => relay.destinations.add({ url: `${URL_A}/moved`, hookIds: ["h1"], unique: true }),
      /hook 'h1'/,
    );
    await relay.destinations.remove(first.id);
    await relay.destinations.add({ url: `${URL_A}/moved`, hookIds: ["h1"], unique: true });
    await relay.destinations.add({ url: URL_A, hookIds: ["h3"], unique: true });
    assert.deepEqual(clashes(await relay.destinations.list()), []);
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("destinations: any adds, updates and removals, several at once, never leave one URL two destinations of a hook", async () => {
  const hooks = ["h1", "h2", "h3"];
  const urls = [URL_A, `${URL_A}/b`, "HTTP://127.0.0.1:9/hooks"];
  const hookIds = fc.option(fc.uniqueArray(fc.constantFrom(...hooks), { minLength: 1 }), { nil: undefined });
  const op = fc.oneof(
    fc.record({ kind: fc.constant("add" as const), url: fc.constantFrom(...urls), hookIds }),
    fc.record({
      kind: fc.constant("update" as const),
      pick: fc.nat(),
      url: fc.option(fc.constantFrom(...urls), { nil: undefined }),
      hookIds: fc.option(fc.uniqueArray(fc.constantFrom(...hooks), { minLength: 1 }), { nil: null }),
    }),
    fc.record({ kind: fc.constant("remove" as const), pick: fc.nat() }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(op, { minLength: 1, maxLength: 4 }), { maxLength: 5 }), async (waves) => {
      const kv = await Deno.openKv(":memory:");
      const one = createRelay(kv, { allowPrivateNetwork: true });
      const two = createRelay(kv, { allowPrivateNetwork: true });
      try {
        await seedHooks(kv, hooks);
        for (const wave of waves) {
          const ids = (await one.destinations.list()).map((d) => d.id);
          await Promise.allSettled(wave.map((o, i) => {
            const relay = i % 2 === 0 ? one : two;
            if (o.kind === "add") return relay.destinations.add({ url: o.url, hookIds: o.hookIds, unique: true });
            const id = ids.length === 0 ? "none" : ids[o.pick % ids.length];
            if (o.kind === "remove") return relay.destinations.remove(id);
            return relay.destinations.update(
              id,
              o.url === undefined ? { hookIds: o.hookIds, unique: true } : { url: o.url, unique: true },
            );
          }));
          assert.deepEqual(clashes(await one.destinations.list()), []);
        }
      } finally {
        await one.close();
        await two.close();
        kv.close();
      }
    }),
    { numRuns: 40 },
  );
});

Deno.test("without unique, the same URL may be added twice for a hook, and the index still serves a later unique add", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    const a = await relay.destinations.add({ url: URL_A, hookIds: ["h1"] });
    const b = await relay.destinations.add({ url: URL_A });
    assert.notEqual(a.id, b.id);
    assert.equal((await relay.destinations.list()).length, 2);
    await assert.rejects(() => relay.destinations.add({ url: URL_A, hookIds: ["h2"], unique: true }), /hook 'h2'/);
    await assert.rejects(
      () => relay.destinations.add({ url: URL_A, unique: "yes" as unknown as boolean }),
      /'unique' must be a boolean/,
    );
    await relay.destinations.remove(b.id);
    await relay.destinations.add({ url: URL_A, hookIds: ["h2"], unique: true });
    await assert.rejects(() => relay.destinations.update(a.id, { hookIds: ["h2"], unique: true }), /hook 'h2'/);
  } finally {
    await relay.close();
    kv.close();
  }
});
