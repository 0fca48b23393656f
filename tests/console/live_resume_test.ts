// The live deliveries' event stream across a console restart: its events
// carry ids, so an event-stream client (a browser's EventSource does it by
// itself) reconnects with `Last-Event-ID`. The deliveries stored while it
// was away (the console down, another process writing on the KV file) are
// sent to it on the new stream, each once, and none it was already sent.

import assert from "node:assert/strict";
import { signIn, startConsole } from "./_helpers.ts";
import { openStream, until } from "./_live_stream.ts";
import { DeliveryStore } from "../../console/log/mod.ts";
import { postback } from "./_postback.ts";

const item = (title: string) => ({ webhook: "https://acme.example/w/1", activity: { verb: "jive:created", title } });

Deno.test("a live stream reconnecting with Last-Event-ID after a console restart gets what was stored meanwhile, once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cw_live_resume_" });
  const kvPath = `${dir}/console.kv`;
  let t = await startConsole({ kvPath });
  try {
    const client = await signIn(t.origin);
    const first = openStream(t.origin, client);
    await first.ready;
    // Stored by another process on the file: the console polls for them.
    const otherKv = await Deno.openKv(kvPath);
    try {
      const other = new DeliveryStore(otherKv);
      const before = await other.add("hook-1", [item("before 1"), item("before 2")]);
      await until(() => first.ids().length >= 2, 20_000);
      assert.deepEqual(first.ids(), before.map((v) => v.id), "the open stream sent both");
      const lastId = first.lastId();
      assert.ok(lastId, "each delivery event carries an id");
      await first.stop();

      // The console goes down and comes back; meanwhile another process stores three more.
      await t.close();
      const meanwhile = await other.add("hook-1", [item("while away 1"), item("while away 2"), item("while away 3")]);
      await other.flush();
      t = await startConsole({ kvPath });

      const second = openStream(t.origin, client, lastId);
      await second.ready;
      await until(() => second.ids().length >= 3, 20_000);
      await new Promise((r) => setTimeout(r, 1_500)); // a copy would come with the next poll
      assert.deepEqual(
        second.ids(),
        meanwhile.map((v) => v.id),
        "the resumed stream sends what was stored while it was away, and nothing it sent before",
      );
      await second.stop();
    } finally {
      otherKv.close();
    }
  } finally {
    await t.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a live stream that sent a late commit after a newer one resumes past both, sending neither again", async () => {
  const t = await startConsole();
  try {
    const client = await signIn(t.origin);
    const first = openStream(t.origin, client);
    await first.ready;
    const store = new DeliveryStore(t.kv);
    const [a] = await store.add("hook-1", [item("a")]);
    const [b] = await store.add("hook-1", [item("b")]);
    await until(() => first.ids().length >= 2, 20_000);
    // Another process's commit, numbered below a, lands now: the stream sends it after b.
    const op = t.kv.atomic();
    store.write(postback("late", a.seq - 1), op);
    assert.ok((await op.commit()).ok);
    await until(() => first.ids().length >= 3, 20_000);
    assert.equal(first.ids().length, 3, "the stream sent a, b and the late one");
    assert.equal(first.ids()[0], a.id);
    assert.equal(first.ids()[1], b.id);
    const lastId = first.lastId();
    await first.stop();

    const [c] = await store.add("hook-1", [item("c")]);
    const second = openStream(t.origin, client, lastId);
    await second.ready;
    await until(() => second.ids().length >= 1, 20_000);
    await new Promise((r) => setTimeout(r, 1_500)); // a copy would come with the next poll
    assert.deepEqual(second.ids(), [c.id], "only c: a, b and the late one were sent before");
    await second.stop();
  } finally {
    await t.close();
  }
});

Deno.test("a live stream asked to resume from an id it never sends is refused with 400 naming Last-Event-ID", async () => {
  const t = await startConsole();
  try {
    const client = await signIn(t.origin);
    for (const junk of ["abc", "-5", "1.5", "99999999999999999"]) {
      const res = await fetch(`${t.origin}/deliveries/events`, {
        headers: { cookie: `cw_session=${client.cookies.get("cw_session")}`, "last-event-id": junk },
      });
      const body = await res.json();
      assert.equal(res.status, 400, junk);
      assert.match(body.error, /Last-Event-ID/);
    }
  } finally {
    await t.close();
  }
});

Deno.test("a live stream resumed from an id older than the resume window starts at the newest, reading none of the past", async () => {
  const t = await startConsole();
  try {
    const client = await signIn(t.origin);
    const store = new DeliveryStore(t.kv);
    await store.add("hook-1", [item("old 1"), item("old 2"), item("old 3")]);
    // "1" is the first number of the log's first millisecond: a stream cut that long ago (or an id made up) would
    // read the whole log into memory, held by every stream that asks. It starts as a new stream does (the console's
    // pages look again on `ready`).
    const far = openStream(t.origin, client, "1");
    await far.ready;
    await new Promise((r) => setTimeout(r, 1_500)); // a row sent from the past would come by now
    assert.deepEqual(far.ids(), [], "rows stored before the stream were sent to a resume from far back");
    const [fresh] = await store.add("hook-1", [item("fresh")]);
    await until(() => far.ids().length >= 1, 20_000);
    assert.deepEqual(far.ids(), [fresh.id]);
    await far.stop();
  } finally {
    await t.close();
  }
});
