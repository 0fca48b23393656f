import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHmac } from "node:crypto";
import fc from "fast-check";
import { signJiveExtn, verifyJiveExtn } from "../../../webhooks/mod.ts";

const SECRET = btoa("sixteen byte key and then some more bytes");
const PARAMS = {
  clientId: "client-1",
  jiveUrl: "https://community.example.com/sandbox",
  tenantId: "tenant-1",
};
const NOW = 1_750_000_000_000;

function replaceParam(header: string, name: string, value: string): string {
  return header.replace(new RegExp(`${name}=[^&]*`), `${name}=${value}`);
}

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

Deno.test("verifyJiveExtn() rejects a missing or empty header", async () => {
  for (const header of [null, undefined, "", "   "]) {
    assert.deepEqual(await verifyJiveExtn(header, SECRET), {
      ok: false,
      reason: "Missing Authorization header",
    });
  }
});

Deno.test("verifyJiveExtn() rejects another scheme, another algorithm and malformed parameters", async () => {
  const header = await signJiveExtn({ ...PARAMS, timestamp: NOW }, SECRET);
  const params = header.slice("JiveEXTN ".length);
  const cases: [string, string][] = [
    [
      `Bearer ${params}`,
      "Authorization scheme must be JiveEXTN",
    ],
    ["JiveEXTN", "JiveEXTN header has no signature as its last parameter"],
    [
      replaceParam(header, "algorithm", "HmacSHA1"),
      "JiveEXTN algorithm must be HmacSHA256",
    ],
    [
      header.replace("&tenant_id=tenant-1", ""),
      "JiveEXTN header lacks the 'tenant_id' parameter",
    ],
    [
      header.replace("&client_id=client-1", "&client_id="),
      "JiveEXTN header lacks the 'client_id' parameter",
    ],
    [
      header.replace("&tenant_id=tenant-1", "&tenant_id=tenant-1&tenant_id=x"),
      "JiveEXTN parameter 'tenant_id' is repeated",
    ],
    [
      replaceParam(header, "timestamp", "soon"),
      "JiveEXTN timestamp must be milliseconds since the epoch",
    ],
    [
      header.replace("&timestamp=", "&extra=1&timestamp="),
      "JiveEXTN signature does not match",
    ],
    [
      `${header}&tenant_id=other`,
      "JiveEXTN header has no signature as its last parameter",
    ],
    [
      header.replace("&tenant_id=", "&tenant_id"),
      "JiveEXTN header has a malformed parameter",
    ],
    [
      header.replace("client_id=client-1", "client_id=%E0%A4%A"),
      "JiveEXTN parameter 'client_id' is not URL-encoded",
    ],
  ];
  for (const [bad, reason] of cases) {
    assert.deepEqual(
      await verifyJiveExtn(bad, SECRET, { now: NOW }),
      { ok: false, reason },
      bad,
    );
  }
  // The scheme is matched case-insensitively, like any HTTP auth scheme.
  assert.equal(
    (await verifyJiveExtn(`jiveextn ${params}`, SECRET, { now: NOW })).ok,
    true,
  );
});

Deno.test("verifyJiveExtn() never puts the secret into a reason", async () => {
  const secret = btoa("top secret key material") + ".s";
  const header = await signJiveExtn({ ...PARAMS, timestamp: NOW }, secret);
  const bads = [
    header,
    replaceParam(header, "signature", "AAAA"),
    replaceParam(header, "algorithm", secret),
    replaceParam(header, "timestamp", secret),
    `${secret} ${header}`,
  ];
  for (const bad of bads) {
    const result = await verifyJiveExtn(bad, secret, { now: NOW + 10 ** 9 });
    assert.equal(result.ok, false);
    assert.ok(
      !result.ok && !result.reason.includes(secret.slice(0, 20)),
      result.ok ? "" : result.reason,
    );
  }
});

Deno.test("signJiveExtn() and verifyJiveExtn() throw a TypeError for a bad secret without showing it", async () => {
  const bad = "not base64 at all!";
  await assert.rejects(() => signJiveExtn(PARAMS, bad), (error: Error) => {
    assert.ok(error instanceof TypeError);
    assert.equal(
      error.message,
      "Cannot sign: 'clientSecret' is not valid base64",
    );
    return true;
  });
  await assert.rejects(
    () => verifyJiveExtn("JiveEXTN x", ""),
    new TypeError(
      "Cannot verify: 'clientSecret' must be a non-empty base64 string",
    ),
  );
});

Deno.test("signJiveExtn() throws a TypeError naming a bad parameter", async () => {
  await assert.rejects(
    () => signJiveExtn({ ...PARAMS, tenantId: "" }, SECRET),
    new TypeError(
      "Cannot sign: 'tenantId' must be a non-empty string, got \"\"",
    ),
  );
  await assert.rejects(
    () => signJiveExtn({ ...PARAMS, timestamp: 1.5 }, SECRET),
    new TypeError(
      "Cannot sign: 'timestamp' must be a non-negative integer of milliseconds, got 1.5",
    ),
  );
});

Deno.test("verifyJiveExtn() throws a RangeError for a negative maxAgeMs", async () => {
  await assert.rejects(
    () => verifyJiveExtn("JiveEXTN x", SECRET, { maxAgeMs: -1 }),
    new RangeError(
      "Cannot verify: 'maxAgeMs' must be a non-negative number, got -1",
    ),
  );
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

Deno.test("verifyJiveExtn() rejects each parameter when it is missing or given twice", async () => {
  const header = await signJiveExtn({ ...PARAMS, timestamp: NOW }, SECRET);
  const pairs = header.slice("JiveEXTN ".length).split("&");
  for (const [i, pair] of pairs.entries()) {
    const name = pair.slice(0, pair.indexOf("="));
    const without = "JiveEXTN " + pairs.filter((_, j) => j !== i).join("&");
    const missing = await verifyJiveExtn(without, SECRET, { now: NOW });
    assert.equal(missing.ok, false, `${name} missing`);
    assert.match(
      missing.ok ? "" : missing.reason,
      name === "signature" ? /no signature as its last parameter/ : new RegExp(`lacks the '${name}' parameter`),
    );
    if (name === "signature") continue;
    const twice = "JiveEXTN " + [...pairs.slice(0, i + 1), pair, ...pairs.slice(i + 1)].join("&");
    assert.deepEqual(await verifyJiveExtn(twice, SECRET, { now: NOW }), {
      ok: false,
      reason: `JiveEXTN parameter '${name}' is repeated`,
    });
  }
  const twoSignatures = header.replace("&signature=", "&signature=AAAA&signature=");
  assert.equal((await verifyJiveExtn(twoSignatures, SECRET, { now: NOW })).ok, false);
});

Deno.test("verifyJiveExtn() refuses garbage without throwing and without echoing it", async () => {
  const garbage = [
    "JiveEXTN",
    "JiveEXTN &&&&",
    "JiveEXTN =&=&signature=",
    "JiveEXTN signature=" + "A".repeat(10_000),
    "JiveEXTN a=%ZZ&signature=x",
    "\u0000\u0001\u0002",
    "JiveEXTN " + "x".repeat(20_000),
    "JiveEXTN algorithm=HmacSHA256&client_id=%F0%9F&jive_url=u&tenant_id=t&timestamp=1&signature=AAAA",
  ];
  for (const header of garbage) {
    const result = await verifyJiveExtn(header, SECRET, { now: NOW });
    assert.equal(result.ok, false, header.slice(0, 40));
    assert.ok(!result.ok && !result.reason.includes("AAAA") && !result.reason.includes("xxxx"));
  }
});

Deno.test("verifyJiveExtn() takes HTTP's whitespace around the header (spaces, tabs) and refuses any other", async () => {
  const header = await signJiveExtn({ ...PARAMS, timestamp: NOW }, SECRET);
  const params = header.slice("JiveEXTN ".length);
  const fields = { ok: true, clientId: "client-1", tenantId: "tenant-1", jiveUrl: PARAMS.jiveUrl, timestamp: NOW };
  // RFC 9110: OWS (spaces and tabs) at either end is not part of the value, and one or more spaces follow the scheme.
  // These spellings are the header itself: they verify to the same fields, so they share one replay key.
  const same = [
    `${header}\t`,
    `\t${header}`,
    ` \t${header} \t `,
    `${header}   `,
    `JiveEXTN    ${params}`,
    `jiveextn ${params}`,
  ];
  for (const spelled of same) {
    assert.deepEqual(await verifyJiveExtn(spelled, SECRET, { now: NOW }), fields, JSON.stringify(spelled));
  }
  // Over HTTP the ends are dropped before the receiver sees the header.
  assert.equal(new Headers({ authorization: `${header}\t` }).get("authorization"), header);
  // Any other whitespace is not HTTP's and is refused, by where it stands.
  const refused: [string, RegExp][] = [
    [`${header}\u00a0`, /^JiveEXTN signature is not base64$/],
    [`${header}\u2003`, /^JiveEXTN signature is not base64$/],
    [`${header}\n`, /^JiveEXTN signature is not base64$/],
    [`${header}\r\n\t`, /^JiveEXTN signature is not base64$/],
    [`${header}\v`, /^JiveEXTN signature is not base64$/],
    [`${header}\ufeff`, /^JiveEXTN signature is not base64$/],
    [`\u00a0${header}`, /^Authorization scheme must be JiveEXTN$/],
    [`\n${header}`, /^Authorization scheme must be JiveEXTN$/],
    [`JiveEXTN\t${params}`, /^Authorization scheme must be JiveEXTN$/],
    [`JiveEXTN \t${params}`, /^JiveEXTN header has whitespace other than spaces after its scheme$/],
    [`JiveEXTN \u00a0${params}`, /^JiveEXTN header has whitespace other than spaces after its scheme$/],
  ];
  for (const [spelled, reason] of refused) {
    const result = await verifyJiveExtn(spelled, SECRET, { now: NOW });
    assert.equal(result.ok, false, JSON.stringify(spelled));
    assert.match(result.ok ? "" : result.reason, reason, JSON.stringify(spelled));
  }
  assert.deepEqual(await verifyJiveExtn(" \t ", SECRET, { now: NOW }), {
    ok: false,
    reason: "Missing Authorization header",
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
