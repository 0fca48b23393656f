// signJiveExtn() and verifyJiveExtn() agree with each other and with
// node:crypto's HMAC (for any key length and parameter text), use the current
// time by default, and drop a trailing .s from the secret.

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHmac } from "node:crypto";
import fc from "fast-check";
import { signJiveExtn, verifyJiveExtn } from "../../../webhooks/mod.ts";
import { NOW, PARAMS, SECRET } from "./_jive_extn.ts";

Deno.test("signJiveExtn() produces a header verifyJiveExtn() accepts", async () => {
  const header = await signJiveExtn({ ...PARAMS, timestamp: NOW }, SECRET);
  assert.match(
    header,
    /^JiveEXTN algorithm=HmacSHA256&client_id=client-1&jive_url=https%3A%2F%2Fcommunity\.example\.com%2Fsandbox&tenant_id=tenant-1&timestamp=1750000000000&signature=[A-Za-z0-9%]+$/,
  );
  const result = await verifyJiveExtn(header, SECRET, { now: NOW + 1000 });
  assert.deepEqual(result, {
    ok: true,
    clientId: "client-1",
    tenantId: "tenant-1",
    jiveUrl: "https://community.example.com/sandbox",
    timestamp: NOW,
  });
});

Deno.test("signJiveExtn() uses the current time when no timestamp is given", async () => {
  const before = Date.now();
  const header = await signJiveExtn(PARAMS, SECRET);
  const ts = Number(/timestamp=(\d+)/.exec(header)![1]);
  assert.ok(ts >= before && ts <= Date.now(), `timestamp ${ts}`);
  assert.equal((await verifyJiveExtn(header, SECRET)).ok, true);
});

Deno.test("signJiveExtn() matches a signature computed independently with node:crypto", async () => {
  const secretBytes = Buffer.from("an independent key, not base64 yet");
  const secret = secretBytes.toString("base64") + ".s";
  const header = await signJiveExtn({ ...PARAMS, timestamp: NOW }, secret);
  const paramString = "algorithm=HmacSHA256&client_id=client-1" +
    "&jive_url=https%3A%2F%2Fcommunity.example.com%2Fsandbox" +
    "&tenant_id=tenant-1&timestamp=1750000000000";
  const expected = createHmac("sha256", secretBytes).update(paramString)
    .digest("base64");
  assert.equal(
    header,
    `JiveEXTN ${paramString}&signature=${encodeURIComponent(expected)}`,
  );
});

Deno.test("verifyJiveExtn() accepts a header signed by node:crypto with an unencoded signature", async () => {
  const secretBytes = Buffer.from([0xfb, 0xff, 0xfe, 1, 2, 3, 4, 5, 6, 7]);
  const paramString = `algorithm=HmacSHA256&client_id=abc&jive_url=http://localhost:8000&tenant_id=t&timestamp=${NOW}`;
  const signature = createHmac("sha256", secretBytes).update(paramString)
    .digest("base64");
  const header = `JiveEXTN ${paramString}&signature=${signature}`;
  const result = await verifyJiveExtn(
    header,
    secretBytes.toString("base64"),
    { now: NOW },
  );
  assert.equal(result.ok, true);
  assert.equal(result.ok && result.jiveUrl, "http://localhost:8000");
});

Deno.test("verifyJiveExtn() drops a trailing .s from the secret, on both sides", async () => {
  const header = await signJiveExtn(
    { ...PARAMS, timestamp: NOW },
    SECRET + ".s",
  );
  assert.equal((await verifyJiveExtn(header, SECRET, { now: NOW })).ok, true);
  assert.equal(
    (await verifyJiveExtn(header, SECRET + ".s", { now: NOW })).ok,
    true,
  );
  const other = await verifyJiveExtn(header, btoa("another key"), { now: NOW });
  assert.deepEqual(other, {
    ok: false,
    reason: "JiveEXTN signature does not match",
  });
});

Deno.test("verifyJiveExtn() agrees with node:crypto's HMAC for any key length and parameter text", async () => {
  // Keys shorter and longer than SHA-256's 64-byte block (a longer key is hashed first), parameters of any
  // characters (non-ASCII is signed as UTF-8) and long enough to outgrow the verifier's reused buffer; a
  // one-bit change of the signature never verifies.
  await fc.assert(
    fc.asyncProperty(
      fc.uint8Array({ minLength: 1, maxLength: 200, size: "max" }),
      fc.string({ unit: "grapheme", maxLength: 600, size: "max" }),
      fc.string({ minLength: 1, maxLength: 40 }),
      fc.nat({ max: 255 }),
      async (key, jiveUrl, tenantId, bit) => {
        const paramString = `algorithm=HmacSHA256&client_id=c&jive_url=${encodeURIComponent(jiveUrl || "x")}` +
          `&tenant_id=${encodeURIComponent(tenantId)}&timestamp=${NOW}`;
        const signature = createHmac("sha256", key).update(paramString).digest();
        const secret = Buffer.from(key).toString("base64");
        const header = (sig: Uint8Array) => `JiveEXTN ${paramString}&signature=${Buffer.from(sig).toString("base64")}`;
        assert.equal((await verifyJiveExtn(header(signature), secret, { now: NOW })).ok, true);
        const flipped = Uint8Array.from(signature);
        flipped[bit >> 3] ^= 1 << (bit & 7);
        assert.deepEqual(await verifyJiveExtn(header(flipped), secret, { now: NOW }), {
          ok: false,
          reason: "JiveEXTN signature does not match",
        });
      },
    ),
    { numRuns: 300 },
  );
});
