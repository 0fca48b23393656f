// Two write-mode receiver processes on one KV (a local file, and KV Connect)
// take a load of signed postbacks (one in eight as two copies at once, one to
// each); part way one is killed (SIGKILL) with requests in flight and a fresh
// one starts. Every request that failed is
// sent again, as the platform does, until it is answered 200. Read from the
// KV directly: every postback answered 200 is stored once and whole, and a
// postback lost with the killed process is stored whole or not at all.

import assert from "node:assert/strict";
import { startKvConnectServer } from "../../../kvconnect/mod.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { type Child, spawnChild } from "../_child.ts";
import { seed } from "../_receiver.ts";
import { HOOKS_A, postbackOf, type Sent, storedRows, wholeOnce } from "./_kill_postbacks.ts";

const CHILD = new URL("./_kill_child.ts", import.meta.url).pathname;
/** Requests in flight at once, spread over the live processes. */
const CONCURRENCY = 24;
/** How long the whole load may take before the test gives up. */
const DEADLINE_MS = 25_000;

interface Target {
  child: Child;
  port: number;
  alive: boolean;
  inFlight: number;
}

async function start(kvUrl: string): Promise<Target> {
  const child = spawnChild(CHILD, [kvUrl]);
  const port = Number((await child.waitFor(/^port \d+$/)).split(" ")[1]);
  return { child, port, alive: true, inFlight: 0 };
}

/**
 * The load: `CONCURRENCY` clients send the postbacks to the live processes in
 * turn, and send again every one not answered 200. After `killAfter` answers
 * of 200, the process with the most requests in flight is killed; the KV is
 * read before any of the requests lost with it goes again, and a fresh
 * process joins the survivor.
 */
class Load {
  readonly #kvUrl: string;
  readonly #kv: Deno.Kv;
  readonly #sent: Sent[];
  readonly #killAfter: number;
  readonly targets: Target[] = [];
  readonly #fresh: number[];
  readonly #retries: number[] = [];
  #answered = 0;
  #turn = 0;
  #started = 0;
  #stopped = false;
  /** The kill and the read after it; a lost postback goes again once it settled. */
  killed: Promise<void> | undefined;
  /** Postbacks lost in the kill that the killed process had committed. */
  readonly lostStored: number[] = [];

  constructor(kvUrl: string, kv: Deno.Kv, sent: Sent[]) {
    this.#kvUrl = kvUrl;
    this.#kv = kv;
    this.#sent = sent;
    this.#killAfter = Math.round(sent.length / 3);
    this.#fresh = [...sent.keys()];
  }

  /** Runs the clients until every postback is answered 200; the time it took, ms. */
  async run(): Promise<number> {
    this.targets.push(...await Promise.all([start(this.#kvUrl), start(this.#kvUrl)]));
    this.#started = performance.now();
    try {
      await Promise.all(Array.from({ length: CONCURRENCY }, () => this.#client()));
      await this.killed;
    } finally {
      this.#stopped = true;
    }
    return performance.now() - this.#started;
  }

  async #client(): Promise<void> {
    while (!this.#stopped && this.#answered < this.#sent.length) {
      const late = performance.now() - this.#started > DEADLINE_MS;
      if (late) this.#stopped = true;
      assert.ok(!late, `${this.#answered} of ${this.#sent.length} answered 200 in time`);
      const p = this.#retries.shift() ?? this.#fresh.shift();
      if (p === undefined) {
        await new Promise((r) => setTimeout(r, 10));
        continue;
      }
      const s = this.#sent[p];
      if (s.lost) await this.killed; // a lost one goes again once the KV was read
      // One in eight goes as two copies at once, as the platform's retry of a slow answer does.
      const copies = p % 8 === 0 ? 2 : 1;
      const outcomes = await Promise.all(Array.from({ length: copies }, () => this.#send(s)));
      s.answers.push(...outcomes);
      if (outcomes.some((outcome) => outcome.startsWith("200"))) {
        if (++this.#answered >= this.#killAfter && this.killed === undefined) {
          this.killed = this.#kill();
          this.killed.catch(() => {}); // its failure is reported by run(), not as unhandled meanwhile
        }
      } else {
        await new Promise((r) => setTimeout(r, 20));
        this.#retries.push(p);
      }
    }
  }

  /** Sends a postback to the next live process: "200", "200 duplicate", another status, or "lost". */
  async #send(s: Sent): Promise<string> {
    const live = this.targets.filter((t) => t.alive);
    const target = live[this.#turn++ % live.length];
    target.inFlight++;
    try {
      const res = await fetch(`http://127.0.0.1:${target.port}/hooks`, {
        method: "POST",
        headers: { authorization: s.authorization },
        body: s.body,
        signal: AbortSignal.timeout(10_000),
      });
      const body = await res.json();
      if (res.status !== 200) return String(res.status);
      if (body.duplicate) return "200 duplicate";
      assert.equal(body.received, s.activities.length);
      return "200";
    } catch (error) {
      if (error instanceof assert.AssertionError) throw error;
      if (!target.alive) s.lost = true;
      return "lost";
    } finally {
      target.inFlight--;
    }
  }

  /** Kills the busier process with its requests in flight, reads the KV, and starts a fresh process. */
  async #kill(): Promise<void> {
    const [a, b] = this.targets;
    const victim = a.inFlight > b.inFlight ? a : b;
    victim.alive = false;
    await victim.child.kill();
    for (let i = 0; victim.inFlight > 0 && i < 200; i++) await new Promise((r) => setTimeout(r, 10));
    const answered = this.#sent.flatMap((s, p) => s.answers.some((x) => x.startsWith("200")) ? [p] : []);
    const lost = this.#sent.flatMap((s, p) => s.lost ? [p] : []);
    const rows = await storedRows(this.#kv);
    // Each postback answered 200 so far is stored whole (its commit came before its answer)...
    const missing = answered.flatMap((p) => {
      const reason = wholeOnce(this.#sent[p], rows.get(p) ?? []);
      return reason === null ? [] : [`postback ${p}: ${reason}`];
    });
    assert.deepEqual(missing, [], "answered 200 before the kill, not stored once and whole");
    // ...and one lost with the killed process, before it is sent again, is stored whole or not at all.
    for (const p of lost) {
      const mine = rows.get(p);
      if (mine === undefined) continue;
      assert.equal(wholeOnce(this.#sent[p], mine), null, `postback ${p}, lost in the kill, stored in part`);
      this.lostStored.push(p);
    }
    this.targets.push(await start(this.#kvUrl));
  }
}

/** Seeds the hooks, sends `postbacks` postbacks to two processes on `kvUrl`, one killed part way, and reads back. */
async function killUnderLoad(kvUrl: string, kv: Deno.Kv, postbacks: number): Promise<void> {
  const hooks = createWebhooks(kv);
  await seed(hooks);
  for (const [id, ref] of HOOKS_A.slice(1)) {
    await hooks.save({ id, tenantId: "tenant-a", entity: { id: id.slice(5), resources: { self: { ref } } } });
  }
  const at = Date.now();
  const sent = await Promise.all(Array.from({ length: postbacks }, (_, p) => postbackOf(p, at)));
  const load = new Load(kvUrl, kv, sent);
  try {
    const elapsed = await load.run();
    const lost = sent.filter((s) => s.lost);
    const answers = sent.flatMap((s) => s.answers);
    const tally = (what: string) => answers.filter((a) => a === what).length;
    const other = answers.length - tally("200") - tally("200 duplicate") - tally("lost");
    console.log(
      `${postbacks} postbacks in ${Math.round(elapsed)} ms; ${lost.length} in flight at the kill, ` +
        `${load.lostStored.length} of them stored when read after it; answers: ${tally("200")} 200, ` +
        `${tally("200 duplicate")} duplicate, ${tally("lost")} lost, ${other} other`,
    );
    assert.ok(lost.length > 0, "no request was in flight to the killed process");

    // Read back: every postback (each was answered 200 at last) is stored once and whole, and nothing else is.
    const rows = await storedRows(kv);
    assert.deepEqual([...rows.keys()].filter((p) => !(p >= 0 && p < postbacks)), [], "rows of no postback sent");
    const wrong = sent.flatMap((s, p) => {
      const reason = wholeOnce(s, rows.get(p) ?? []);
      return reason === null ? [] : [`postback ${p} (answers ${s.answers.join(", ")}): ${reason}`];
    });
    assert.deepEqual(wrong, []);
    // Each postback is answered 200 as stored (not duplicate) once at most, and duplicates only when a
    // copy was lost in the kill and it was stored when read after the kill (the killed process committed it).
    assert.deepEqual(sent.flatMap((s, p) => s.answers.filter((a) => a === "200").length > 1 ? [p] : []), []);
    const duplicatesOnly = sent.flatMap((s, p) => s.answers.includes("200") ? [] : [p]);
    assert.deepEqual(duplicatesOnly.filter((p) => !load.lostStored.includes(p)), [], "duplicate of nothing stored");
  } finally {
    await Promise.all(load.targets.map((t) => t.child.kill()));
  }
}

Deno.test("two receiver processes on one KV file, one killed under load: every postback answered 200 is stored once and whole", async () => {
  const dir = await Deno.makeTempDir({ prefix: "receiver_kill_" });
  const path = `${dir}/kv.sqlite3`;
  const kv = await Deno.openKv(path);
  try {
    await killUnderLoad(path, kv, 600);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two receiver processes over KV Connect, one killed under load: every postback answered 200 is stored once and whole", async () => {
  const server = await startKvConnectServer({ path: ":memory:", token: TEST_TOKEN });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const kv = await Deno.openKv(server.url);
  try {
    await killUnderLoad(server.url, kv, 300);
  } finally {
    kv.close();
    await server.close();
  }
});
