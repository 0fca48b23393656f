// The delivery log's readers against real writer processes on one KV file
// (tests/console/log/_log_writer_child.ts), each trimming the log to a
// small retention as it writes, two at a time, killed with SIGKILL
// mid-group and started again, while the console (a real HTTP server on the
// file) is walked page by page, streams the live view, and restarts:
// - a walk of pages, Older or Newer, shows no row twice, in order, and none
//   that was there when it started and is there still between its first
//   and last row; every page answers 200;
// - the live stream, resumed with Last-Event-ID after the console's
//   restart, shows every delivery the log holds past its start once;
// - the summary (all, and by hook) counts what a full read of the log lists.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";
import { Client, signIn, startConsole, type TestConsole } from "../_helpers.ts";
import { openStream, until } from "../_live_stream.ts";

const RETAIN = 150;
const ROOT = new URL("../../../", import.meta.url);

/** A writer process on `path`; resolves once it stored its first postback. */
async function startWriter(path: string, tag: string): Promise<Deno.ChildProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      new URL("deno.json", ROOT).pathname,
      new URL("tests/console/log/_log_writer_child.ts", ROOT).pathname,
      path,
      String(RETAIN),
      tag,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("ready")) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the writer exited: ${text}`);
    text += value;
  }
  void (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});
  return child;
}

async function kill9(child: Deno.ChildProcess): Promise<void> {
  child.kill("SIGKILL");
  await child.status;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every row of the log (of `hookId`), newest first, as a full read lists it. */
async function fullRead(kv: Deno.Kv, hookId?: string): Promise<{ id: string; seq: number }[]> {
  return (await new DeliveryStore(kv).list({ hookId, limit: 100_000 })).map(({ id, seq }) => ({ id, seq }));
}

/** Walks the console's pages from the newest (Older) or the oldest (Newer), a page each `everyMs`. */
async function walk(
  t: TestConsole,
  client: Client,
  kv: Deno.Kv,
  options: { older: boolean; hookId?: string; everyMs: number },
): Promise<void> {
  const { older, hookId, everyMs } = options;
  const seqOf = new Map<string, number>();
  const learn = async () => {
    const rows = await fullRead(kv, hookId);
    for (const { id, seq } of rows) seqOf.set(id, seq);
    return new Set(rows.map((r) => r.seq));
  };
  const at = await learn();
  const shown: string[] = [];
  const base: Record<string, string> = hookId ? { hook: hookId } : {};
  let query: Record<string, string> | null = older ? base : { ...base, after: "0" };
  for (let pages = 0; query && pages < 40; pages++) {
    await learn();
    const res = await client.fetch(`/deliveries?${new URLSearchParams(query)}`);
    const html = await res.text();
    assert.equal(res.status, 200, `page ${new URLSearchParams(query)}: ${html.slice(0, 200)}`);
    let ids = [...html.matchAll(/<tr id="delivery-([^"]+)"/g)].map((m) => m[1]);
    await learn();
    // Newer, with nothing newer past it, is the first page shown whole (its older rows shown before): past the cursor.
    if (query.after !== undefined && !html.includes('id="first-page"')) {
      ids = ids.filter((id) => (seqOf.get(id) ?? Infinity) > Number(query!.after));
    }
    for (const id of ids) assert.ok(!shown.includes(id), `a walk showed ${id} twice`);
    // A row stored and trimmed between two full reads is not known: its place is not checked.
    const seqs = ids.flatMap((id) => seqOf.get(id) ?? []);
    for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i] < seqs[i - 1], `a page is newest first: ${seqs}`);
    shown.push(...ids);
    const link = new RegExp(`href="([^"]*)" id="${older ? "older" : "newer"}"`).exec(html)?.[1];
    query = link ? Object.fromEntries(new URL(link.replaceAll("&amp;", "&"), t.origin).searchParams) : null;
    await pause(everyMs);
  }
  const now = await learn();
  const seqs = shown.flatMap((id) => seqOf.get(id) ?? []);
  const lo = Math.min(...seqs), hi = Math.max(...seqs);
  const shownSeqs = new Set(seqs);
  const skipped = [...at].filter((seq) => now.has(seq) && seq > lo && seq < hi && !shownSeqs.has(seq));
  assert.ok(shown.length > 0, "the walk showed rows");
  assert.deepEqual(skipped, [], `a walk ${older ? "Older" : "Newer"} of ${hookId ?? "all"} skipped rows kept`);
}

Deno.test("pages, the live stream and the summary hold across trims, writers killed and the console restarted", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cw_log_processes_" });
  const path = `${dir}/log.kv`;
  const kv = await Deno.openKv(path);
  const writers = new Set<Deno.ChildProcess>();
  const start = async (tag: string) => {
    const w = await startWriter(path, tag);
    writers.add(w);
    return w;
  };
  const stop = async (w: Deno.ChildProcess) => {
    await kill9(w);
    writers.delete(w);
  };
  let t = await startConsole({ kvPath: path, deliveries: { retain: RETAIN } });
  try {
    const client = await signIn(t.origin);
    const first = openStream(t.origin, client);
    await first.ready;
    const from = Number(first.events.find((e) => e.event === "ready")!.data);
    // The first to write takes the trimming lease and keeps it (a killed holder's lease stops trims for 30 s).
    const keeper = await start("w0");
    let [w1, w2] = [await start("w1"), await start("w2")];
    await pause(800);
    // Walks while both write and trim; one writer killed mid-group and started again meanwhile.
    const killing = (async () => {
      await pause(700);
      await stop(w1);
      await pause(300);
      w1 = await start("w1b");
    })();
    await walk(t, client, kv, { older: true, everyMs: 150 });
    await walk(t, client, kv, { older: true, hookId: "h2", everyMs: 150 });
    await killing;
    await walk(t, client, kv, { older: false, hookId: "h1", everyMs: 100 });

    // Both killed (no commit left in flight); the stream shows what they stored; the console goes down. The
    // keeper's commits land in the order of their numbers: none below one the stream sent.
    await stop(w1);
    await stop(w2);
    await pause(1_500);
    const lastId = first.lastId();
    await t.close();
    await first.stop();
    // Two more write while it is away, then it comes back and the stream resumes.
    [w1, w2] = [await start("w3"), await start("w4")];
    await pause(1_000);
    t = await startConsole({ kvPath: path, deliveries: { retain: RETAIN } });
    // The same session (kept in KV), at the new origin.
    const again = new Client(t.origin);
    again.cookies = new Map(client.cookies);
    const second = openStream(t.origin, again, lastId);
    await second.ready;
    await walk(t, again, kv, { older: false, everyMs: 100 });
    await stop(w1);
    await stop(w2);
    await stop(keeper);
    const rows = await fullRead(kv);
    const ids = [...first.ids(), ...second.ids()];
    await until(() => {
      const now = new Set([...first.ids(), ...second.ids()]);
      return rows.every((r) => r.seq <= from || now.has(r.id));
    }, 3_000);
    await pause(1_200); // a copy would come with the next poll
    ids.splice(0, ids.length, ...first.ids(), ...second.ids());
    await second.stop();
    assert.equal(new Set(ids).size, ids.length, "no delivery shown twice by the stream and its resumption");
    const shown = new Set(ids);
    const missed = rows.filter((r) => r.seq > from && !shown.has(r.id));
    assert.deepEqual(missed, [], "the stream and its resumption showed every delivery the log holds");
    assert.ok(rows.length < ids.length, `the log was trimmed meanwhile: ${rows.length} of ${ids.length} rows kept`);

    // A cursor at a row trimmed since: Older answers a page with a way Newer, Newer the oldest rows kept.
    const gone = JSON.parse(first.events.find((e) => e.event === "delivery")!.data).seq as number;
    assert.ok(!rows.some((r) => r.seq === gone), "the first delivery streamed was trimmed");
    const below = await (await again.fetch(`/deliveries?before=${gone}`)).text();
    assert.match(below, /id="newer"/);
    const above = await (await again.fetch(`/deliveries?after=${gone}`)).text();
    assert.ok(above.includes(`<tr id="delivery-${rows[rows.length - 1].id}"`), "Newer from it shows the oldest kept");

    for (const hook of [undefined, "h1", "h2"]) {
      const res = await again.fetch(`/deliveries/stats.json${hook ? `?hook=${hook}` : ""}`);
      const stats = await res.json();
      const listed = await fullRead(kv, hook);
      assert.equal(stats.capped, false, `the summary of ${hook ?? "all"} read every row (${listed.length})`);
      assert.equal(stats.accepted + stats.rejected, listed.length, `the summary of ${hook ?? "all"} counts its rows`);
      assert.equal(stats.last?.id, listed[0]?.id, `the summary of ${hook ?? "all"} names the newest`);
    }
  } finally {
    for (const w of writers) await kill9(w);
    await t.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
