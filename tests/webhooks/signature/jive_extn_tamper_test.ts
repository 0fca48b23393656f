// verifyJiveExtn() refuses a tampered parameter or signature, a signature
// not in canonical base64, and a timestamp too old or in the future.

import assert from "node:assert/strict";
import { signJiveExtn, verifyJiveExtn } from "../../../webhooks/mod.ts";
import { NOW, PARAMS, replaceParam, SECRET } from "./_jive_extn.ts";

Deno.test("verifyJiveExtn() rejects a tampered parameter", async () => {
  const header = await signJiveExtn({ ...PARAMS, timestamp: NOW }, SECRET);
  for (
    const [name, value] of [
      ["tenant_id", "tenant-2"],
      ["client_id", "client-2"],
      ["jive_url", encodeURIComponent("https://evil.example")],
      ["timestamp", String(NOW + 1)],
    ]
  ) {
    const tampered = replaceParam(header, name, value);
    assert.notEqual(tampered, header);
    const result = await verifyJiveExtn(tampered, SECRET, { now: NOW });
    assert.deepEqual(result, {
      ok: false,
      reason: "JiveEXTN signature does not match",
    }, name);
  }
});

Deno.test("verifyJiveExtn() rejects a tampered signature", async () => {
  const header = await signJiveExtn({ ...PARAMS, timestamp: NOW }, SECRET);
  const signature = decodeURIComponent(/signature=(.*)$/.exec(header)![1]);
  const bytes = Uint8Array.from(atob(signature), (c) => c.charCodeAt(0));
  bytes[0] ^= 1;
  const flipped = btoa(String.fromCharCode(...bytes));
  const result = await verifyJiveExtn(
    replaceParam(header, "signature", encodeURIComponent(flipped)),
    SECRET,
    { now: NOW },
  );
  assert.deepEqual(result, {
    ok: false,
    reason: "JiveEXTN signature does not match",
  });
  const garbage = await verifyJiveExtn(
    replaceParam(header, "signature", "%%%"),
    SECRET,
    { now: NOW },
  );
  assert.equal(garbage.ok, false);
  const notBase64 = await verifyJiveExtn(
    replaceParam(header, "signature", "not*base64"),
    SECRET,
    { now: NOW },
  );
  assert.deepEqual(notBase64, {
    ok: false,
    reason: "JiveEXTN signature is not base64",
  });
});

Deno.test("verifyJiveExtn() rejects a timestamp older than 5 minutes", async () => {
  const header = await signJiveExtn({ ...PARAMS, timestamp: NOW }, SECRET);
  const fiveMinutes = 5 * 60 * 1000;
  assert.equal(
    (await verifyJiveExtn(header, SECRET, { now: NOW + fiveMinutes })).ok,
    true,
  );
  const result = await verifyJiveExtn(header, SECRET, {
    now: NOW + fiveMinutes + 1,
  });
  assert.deepEqual(result, {
    ok: false,
    reason: "JiveEXTN timestamp is too old: 300001 ms ago",
  });
  assert.equal(
    (await verifyJiveExtn(header, SECRET, {
      now: NOW + fiveMinutes + 1,
      maxAgeMs: 10 * 60 * 1000,
    })).ok,
    true,
  );
});

Deno.test("verifyJiveExtn() rejects a timestamp more than 30 s in the future", async () => {
  const header = await signJiveExtn({ ...PARAMS, timestamp: NOW }, SECRET);
  assert.equal(
    (await verifyJiveExtn(header, SECRET, { now: NOW - 30_000 })).ok,
    true,
  );
  const result = await verifyJiveExtn(header, SECRET, { now: NOW - 30_001 });
  assert.deepEqual(result, {
    ok: false,
    reason: "JiveEXTN timestamp is in the future: 30001 ms ahead",
  });
  const strict = await verifyJiveExtn(header, SECRET, {
    now: NOW - 1,
    maxFutureMs: 0,
  });
  assert.equal(strict.ok, false);
});

Deno.test("verifyJiveExtn() accepts only the canonical base64 of the signature", async () => {
  const header = await signJiveExtn({ ...PARAMS, timestamp: NOW }, SECRET);
  const signature = decodeURIComponent(/signature=(.*)$/.exec(header)![1]);
  assert.equal(signature.length, 44);
  assert.ok(signature.endsWith("=") && !signature.endsWith("=="));
  // Sent as is (no URL-encoding of + / =) it verifies too: it decodes to the same bytes.
  assert.equal((await verifyJiveExtn(replaceParam(header, "signature", signature), SECRET, { now: NOW })).ok, true);
  const spellings: [string, string][] = [
    ["a space inside", encodeURIComponent(signature.slice(0, 20) + " " + signature.slice(20))],
    ["a newline inside", encodeURIComponent(signature.slice(0, 20) + "\n" + signature.slice(20))],
    ["a tab at the end", encodeURIComponent(signature + "\t")],
    ["no padding", encodeURIComponent(signature.slice(0, -1))],
    ["double padding", encodeURIComponent(signature + "=")],
    ["the URL-safe alphabet", encodeURIComponent(signature.replaceAll("+", "-").replaceAll("/", "_"))],
    ["stray bits in the last quad", encodeURIComponent(signature.slice(0, 42) + "B=")],
    ["too short", encodeURIComponent(btoa("x".repeat(31)))],
    ["too long", encodeURIComponent(btoa("x".repeat(33)))],
  ];
  for (const [name, spelled] of spellings) {
    const result = await verifyJiveExtn(replaceParam(header, "signature", spelled), SECRET, { now: NOW });
    assert.equal(result.ok, false, name);
    assert.match(result.ok ? "" : result.reason, /^JiveEXTN signature is not /, name);
  }
});
