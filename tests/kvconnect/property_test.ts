// A property: random atomic operations applied through KV Connect (Deno's
// own client, the test server) and directly to a local KV give the same
// results: the same commits succeed, the same entries are read back in the
// same order, and each side's versionstamps only grow.

import assert from "node:assert/strict";
import fc from "fast-check";
import { withRemote } from "./_open.ts";

type Expect = "current" | "absent" | "stale";
type Mutation =
  | { kind: "set"; key: number; value: unknown; expireIn?: number }
  | { kind: "delete"; key: number; u64: boolean }
  | { kind: "sum" | "min" | "max"; key: number; n: bigint };
interface Op {
  checks: { key: number; u64: boolean; expect: Expect }[];
  mutations: Mutation[];
  read: { reverse: boolean; limit: number };
}

const valueKey = (n: number): Deno.KvKey => ["p", n];
const u64Key = (n: number): Deno.KvKey => ["u", BigInt(n)];

const value = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.boolean(),
  fc.uint8Array({ maxLength: 8 }),
  fc.record({ a: fc.string(), b: fc.array(fc.integer(), { maxLength: 3 }) }),
);
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant("set" as const),
    key: fc.nat(3),
    value,
    expireIn: fc.option(fc.constant(600_000), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant("delete" as const), key: fc.nat(3), u64: fc.boolean() }),
  fc.record({
    kind: fc.constantFrom("sum" as const, "min" as const, "max" as const),
    key: fc.nat(2),
    n: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
  }),
);
const op: fc.Arbitrary<Op> = fc.record({
  checks: fc.array(
    fc.record({ key: fc.nat(3), u64: fc.boolean(), expect: fc.constantFrom<Expect>("current", "absent", "stale") }),
    { maxLength: 3 },
  ),
  mutations: fc.array(mutation, { minLength: 1, maxLength: 4 }),
  read: fc.record({ reverse: fc.boolean(), limit: fc.integer({ min: 1, max: 10 }) }),
});

/** One KV and what the property remembers of it: the versionstamp each key had before its last change. */
class Side {
  last = "";
  readonly stale = new Map<string, string>();
  constructor(readonly kv: Deno.Kv) {}

  async apply(o: Op): Promise<boolean> {
    const atomic = this.kv.atomic();
    for (const check of o.checks) {
      const key = check.u64 ? u64Key(check.key) : valueKey(check.key);
      const current = (await this.kv.get(key)).versionstamp;
      const versionstamp = check.expect === "current"
        ? current
        : check.expect === "absent"
        ? null
        : this.stale.get(JSON.stringify(key, big)) ?? "00000000000000000001";
      atomic.check({ key, versionstamp });
    }
    const touched: Deno.KvKey[] = [];
    for (const m of o.mutations) {
      if (m.kind === "set") atomic.set(valueKey(m.key), m.value, m.expireIn ? { expireIn: m.expireIn } : undefined);
      else if (m.kind === "delete") atomic.delete(m.u64 ? u64Key(m.key) : valueKey(m.key));
      else atomic[m.kind](u64Key(m.key), m.n);
      touched.push(
        m.kind === "set" ? valueKey(m.key) : m.kind === "delete" && !m.u64 ? valueKey(m.key) : u64Key(m.key),
      );
    }
    const before = await this.kv.getMany(touched.slice(0, 10));
    const res = await atomic.commit();
    if (res.ok) {
      assert.ok(res.versionstamp > this.last, `versionstamps grow: ${res.versionstamp} after ${this.last}`);
      this.last = res.versionstamp;
      for (const entry of before) {
        if (entry.versionstamp) this.stale.set(JSON.stringify(entry.key, big), entry.versionstamp);
      }
    }
    return res.ok;
  }

  async read(o: Op): Promise<unknown> {
    const listed = await Array.fromAsync(this.kv.list({ prefix: [] }, o.read));
    for (const entry of listed) assert.ok(entry.versionstamp <= this.last, "no entry is newer than the last commit");
    const many = await this.kv.getMany([valueKey(0), valueKey(1), u64Key(0), u64Key(1)]);
    return { listed: listed.map((e) => [e.key, e.value]), many: many.map((e) => [e.key, e.value]) };
  }
}

function big(_: string, v: unknown): unknown {
  return typeof v === "bigint" ? `${v}n` : v;
}

Deno.test("random atomic operations through KV Connect and on a local KV give the same results", async () => {
  await withRemote(async (remote) => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const local = await Deno.openKv(":memory:");
        try {
          // Each run starts from an empty remote database.
          const clear = remote.atomic();
          for await (const entry of remote.list({ prefix: [] })) clear.delete(entry.key);
          await clear.commit();
          const sides = [new Side(remote), new Side(local)];
          for (const o of ops) {
            const [viaRemote, viaLocal] = [await sides[0].apply(o), await sides[1].apply(o)];
            assert.equal(viaRemote, viaLocal, `the same commits succeed: ${JSON.stringify(o, big)}`);
            assert.deepEqual(await sides[0].read(o), await sides[1].read(o));
          }
        } finally {
          local.close();
        }
      }),
      { numRuns: 40 },
    );
  });
});
