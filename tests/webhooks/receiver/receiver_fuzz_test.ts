// Property tests (fast-check) of the JiveEXTN parser and the receiver: random
// and near-valid headers, random bodies. None gets a 5xx, none that is not
// signed reaches onPostback, and no respelling of an accepted header is
// handed on a second time.

import assert from "node:assert/strict";
import fc from "fast-check";
import { verifyJiveExtn } from "../../../webhooks/mod.ts";
import { item, NOW, post, REF_A, SECRET_A, signA, withReceiver } from "../_receiver.ts";

const NAMES = ["algorithm", "client_id", "jive_url", "tenant_id", "timestamp", "signature"];

/** Text a header value may hold (a ByteString without CR, LF or NUL). */
const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0xff }).map((code) => String.fromCharCode(code)),
  maxLength: 300,
});

function base64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

/** A value that gets past the cheap checks often: the right tenant, a fresh timestamp, base64 of 32 bytes. */
const paramValue = fc.oneof(
  headerText,
  fc.constantFrom("HmacSHA256", "client-a", "tenant-a", "https%3A%2F%2Fa.example", "", "%", "%ZZ", "%E0%A4%A"),
  fc.integer({ min: NOW - 400_000, max: NOW + 60_000 }).map(String),
  fc.uint8Array({ minLength: 30, maxLength: 34 }).map((b) => encodeURIComponent(base64(b))),
  fc.uint8Array({ minLength: 32, maxLength: 32 }).map(base64),
);

/** A header built from JiveEXTN-like parameters in any order, repeated or missing. */
const looseHeader = fc.tuple(
  fc.constantFrom("JiveEXTN", "jiveextn", "JiveEXTN ", "Bearer", ""),
  fc.array(fc.tuple(fc.oneof(fc.constantFrom(...NAMES), headerText), paramValue), { maxLength: 9 }),
).map(([scheme, params]) => `${scheme} ${params.map(([name, value]) => `${name}=${value}`).join("&")}`);

/** Mostly the right value of each parameter, so that runs get as far as the community lookup and the HMAC. */
function good(name: string): fc.Arbitrary<string> {
  const right: Record<string, fc.Arbitrary<string>> = {
    algorithm: fc.constant("HmacSHA256"),
    client_id: fc.constantFrom("client-a", "client-b"),
    jive_url: fc.constant("https%3A%2F%2Fa.example"),
    tenant_id: fc.constantFrom("tenant-a", "tenant-b", "nobody"),
    timestamp: fc.integer({ min: NOW - 400_000, max: NOW + 60_000 }).map(String),
    signature: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => encodeURIComponent(base64(b))),
  };
  return fc.oneof({ weight: 5, arbitrary: right[name] }, { weight: 1, arbitrary: paramValue });
}

/** `null` four times in five, else a value. */
function rarely<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });
}

/** A JiveEXTN header close to a real one: a parameter may be dropped, doubled or moved. */
const nearHeader = fc.tuple(
  fc.tuple(...NAMES.map(good)),
  rarely(fc.nat({ max: 5 })),
  rarely(fc.nat({ max: 5 })),
  fc.boolean(),
).map(([values, drop, twice, reverse]) => {
  let pairs = NAMES.map((name, i) => `${name}=${values[i]}`);
  if (twice !== null) pairs.splice(twice, 0, pairs[twice]);
  if (drop !== null) pairs.splice(drop, 1);
  if (reverse) pairs = [...pairs.slice(0, -1).reverse(), pairs[pairs.length - 1]];
  return `JiveEXTN ${pairs.join("&")}`;
});

const anyHeader = fc.option(fc.oneof(headerText, looseHeader, nearHeader), { nil: null });

const anyBody = fc.oneof(
  headerText,
  fc.json(),
  fc.constant("[]"),
  fc.array(
    fc.record({
      // Long URLs too: a webhook URL may be any length, so a long unknown one must come to a 404 (or 413), not a 5xx.
      webhook: fc.oneof(
        fc.string(),
        fc.constant(REF_A + "/x"),
        fc.integer(),
        fc.nat({ max: 40_000 }).map((n) => `${REF_A}/${"9".repeat(n)}`),
      ),
      activity: fc.anything(),
    }),
    { maxLength: 120 },
  ).map((items) => JSON.stringify(items)),
  fc.uint8Array({ maxLength: 4096 }),
);

Deno.test("verifyJiveExtn() never throws on a random header, never accepts one and never echoes it", async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(headerText, looseHeader, nearHeader), async (header) => {
      const result = await verifyJiveExtn(header, SECRET_A, { now: NOW });
      assert.equal(result.ok, false);
      if (!result.ok) {
        for (const part of header.split(/[&= ]/)) {
          if (part.length >= 12) assert.ok(!result.reason.includes(part), result.reason);
        }
      }
    }),
    { numRuns: 1000 },
  );
});

Deno.test("random headers and bodies never get a 5xx and never reach onPostback", async () => {
  await withReceiver(async ({ receiver, delivered }) => {
    await fc.assert(
      fc.asyncProperty(anyHeader, anyBody, async (authorization, body) => {
        const headers: Record<string, string> = authorization === null ? {} : { authorization };
        const res = await receiver.handle(post(headers, body as BodyInit));
        await res.body?.cancel();
        assert.ok(res.status < 500, `${res.status} for ${authorization}`);
        assert.equal(delivered.length, 0);
      }),
      { numRuns: 1000 },
    );
  }, { maxBytes: 64 * 1024 });
});

Deno.test("random bodies under a valid signature never get a 5xx and name no hook to hand on", async () => {
  await withReceiver(async ({ receiver, delivered, clock }) => {
    await fc.assert(
      fc.asyncProperty(anyBody, async (body) => {
        clock.now += 1; // a fresh header each run
        const res = await receiver.handle(post({ authorization: await signA(clock.now) }, body as BodyInit));
        await res.body?.cancel();
        assert.ok([200, 400, 404, 413].includes(res.status), String(res.status));
        assert.equal(delivered.length, 0);
      }),
      { numRuns: 300 },
    );
  });
});

Deno.test("no mutation of an accepted header is handed on again", async () => {
  await withReceiver(async ({ receiver, delivered }) => {
    const header = await signA();
    const body = JSON.stringify([item()]);
    assert.equal((await receiver.handle(post({ authorization: header }, body))).status, 200);
    const mutation = fc.tuple(
      fc.nat({ max: header.length }),
      fc.nat({ max: 3 }),
      fc.string({ unit: fc.constantFrom(..."AZaz09+/=%&_- \t.~"), maxLength: 3 }),
    ).map(([at, cut, insert]) => header.slice(0, at) + insert + header.slice(at + cut));
    await fc.assert(
      fc.asyncProperty(mutation, async (mutated) => {
        const res = await receiver.handle(post({ authorization: mutated }, body));
        const answer = await res.json();
        assert.ok(
          res.status === 401 || (res.status === 200 && answer.duplicate === true),
          `${res.status} ${JSON.stringify(answer)}`,
        );
        assert.equal(delivered.length, 1);
      }),
      { numRuns: 1000 },
    );
  });
});
