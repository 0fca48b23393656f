// verifyJiveExtn() refuses a malformed header (missing, another scheme or
// algorithm, a parameter missing or twice, garbage, whitespace HTTP does not
// allow) without throwing, and never echoes the secret or the garbage.

import assert from "node:assert/strict";
import { signJiveExtn, verifyJiveExtn } from "../../../webhooks/mod.ts";
import { NOW, PARAMS, replaceParam, SECRET } from "./_jive_extn.ts";

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
