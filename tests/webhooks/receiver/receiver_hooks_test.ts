// createReceiver()'s reporting and extension hooks: onAttempt (one report per
// request, secrets removed) and accept (a last check before anything is claimed).

import assert from "node:assert/strict";
import fc from "fast-check";
import { item, NOW, post, REF_A, SECRET_A, SIGN_A, signA, withReceiver } from "../_receiver.ts";

Deno.test("handle() reports each attempt once, without the signature, and a throwing onAttempt changes nothing", async () => {
  await withReceiver(async ({ receiver, attempts }) => {
    const header = await signA();
    const signature = /signature=(.*)$/.exec(header)![1];
    const body = JSON.stringify([item(REF_A, "x".repeat(5000))]);
    const res = await receiver.handle(
      post({
        authorization: header,
        cookie: "cw_session=s3cret",
        "x-tenant-id": "tenant-a",
        // A proxy's own credentials, whatever it calls them.
        "x-auth-token": "s3cret-1",
        "x-api-key": "s3cret-2",
        "x-hub-signature-256": "s3cret-3",
        "x-session-id": "s3cret-4",
        "proxy-authorization": "Basic s3cret-5",
        "x-request-id": "req-1",
      }, body),
    );
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal(attempts.length, 1);
    const [attempt] = attempts;
    assert.equal(attempt.status, 200);
    assert.equal(attempt.reason, "Delivered");
    assert.equal(attempt.tenantId, "tenant-a");
    assert.equal(attempt.clientId, "client-a");
    assert.equal(attempt.receivedAt, NOW);
    assert.ok(attempt.durationMs >= 0);
    assert.equal(attempt.bodyExcerpt, body.slice(0, 2048));
    assert.equal(
      attempt.headers.authorization,
      `JiveEXTN algorithm=HmacSHA256&client_id=client-a&jive_url=${
        encodeURIComponent(SIGN_A.jiveUrl)
      }&tenant_id=tenant-a&timestamp=${NOW}`,
    );
    assert.equal(attempt.headers.cookie, "[removed]");
    for (const name of ["x-auth-token", "x-api-key", "x-hub-signature-256", "x-session-id", "proxy-authorization"]) {
      assert.equal(attempt.headers[name], "[removed]", name);
    }
    assert.equal(attempt.headers["x-tenant-id"], "tenant-a");
    assert.equal(attempt.headers["x-request-id"], "req-1");
    const text = JSON.stringify(attempt);
    assert.ok(!text.includes(signature) && !text.includes(decodeURIComponent(signature)));
    assert.ok(!text.includes("s3cret") && !text.includes(SECRET_A));
    // Other schemes keep their name only.
    await (await receiver.handle(post({ authorization: "Bearer tok3n" }, "[]"))).body?.cancel();
    await (await receiver.handle(post({ authorization: "tok3n" }, "[]"))).body?.cancel();
    assert.deepEqual(attempts.slice(1).map((a) => a.headers.authorization), ["Bearer [removed]", "[removed]"]);
  });
  await withReceiver(async ({ receiver, delivered }) => {
    const res = await receiver.handle(post({ authorization: await signA() }, JSON.stringify([item()])));
    assert.deepEqual(await res.json(), { received: 1 });
    const bad = await receiver.handle(post({}, "[]"));
    assert.equal(bad.status, 401);
    await bad.body?.cancel();
    assert.equal(delivered.length, 1);
  }, {
    onAttempt: () => {
      throw new Error("the log is down");
    },
  });
});

/** The report's Authorization as first specified: split on `&`, the public pairs kept in order, each cut to 512. */
function maskedAsSpecified(value: string): string {
  const trimmed = value.trim();
  const space = trimmed.indexOf(" ");
  const scheme = space === -1 ? trimmed : trimmed.slice(0, space);
  const publicNames = ["algorithm", "client_id", "jive_url", "tenant_id", "timestamp"];
  const kept = (space === -1 ? "" : trimmed.slice(space + 1)).split("&").filter((pair) => {
    const eq = pair.indexOf("=");
    return eq > 0 && publicNames.includes(pair.slice(0, eq));
  }).map((pair) => {
    // Cut to 512 characters; a value holding '=', ',', ';' or whitespace is not one parameter's (it may hide the
    // signature of a header that lost an '&'): removed.
    const cut = pair.slice(0, 512);
    const eq = cut.indexOf("=");
    return /[=,;\s]/.test(cut.slice(eq + 1)) ? `${cut.slice(0, eq)}=[removed]` : cut;
  });
  return kept.length ? `${scheme} ${kept.join("&")}` : scheme;
}

Deno.test("handle() reports any JiveEXTN header with its public pairs only, in order, each cut to 512 characters, no value holding a separator", async () => {
  const token = fc.constantFrom(
    "algorithm",
    "client_id",
    "jive_url",
    "tenant_id",
    "timestamp",
    "signature",
    "=",
    "&",
    " ",
    "x",
    "%3D",
    "z".repeat(600),
  );
  await withReceiver(async ({ receiver, attempts }) => {
    await fc.assert(
      fc.asyncProperty(fc.array(token, { maxLength: 24 }), async (tokens) => {
        const header = `JiveEXTN ${tokens.join("")}`;
        attempts.length = 0;
        await (await receiver.handle(post({ authorization: header }, "[]"))).body?.cancel();
        assert.equal(attempts.length, 1);
        // Headers arrive trimmed, as HTTP sends them.
        assert.equal(attempts[0].headers.authorization, maskedAsSpecified(header.trim()));
      }),
      { numRuns: 300 },
    );
    // A long run of separators with the public pairs at its far end is read through.
    const long = `JiveEXTN ${"&".repeat(100_000)}tenant_id=t&signature=s3cret&timestamp=1`;
    attempts.length = 0;
    await (await receiver.handle(post({ authorization: long }, "[]"))).body?.cancel();
    assert.equal(attempts[0].headers.authorization, "JiveEXTN tenant_id=t&timestamp=1");
  });
});

Deno.test("handle() answers 404 when accept refuses, handing nothing on and claiming nothing", async () => {
  let allow = false;
  await withReceiver(async ({ receiver, delivered }) => {
    const header = await signA();
    const refused = await receiver.handle(post({ authorization: header }, JSON.stringify([item()])));
    assert.equal(refused.status, 404);
    assert.deepEqual(await refused.json(), { error: "Unknown webhook: this endpoint does not take these webhooks" });
    assert.equal(delivered.length, 0);
    allow = true;
    const accepted = await receiver.handle(post({ authorization: header }, JSON.stringify([item()])));
    assert.deepEqual(await accepted.json(), { received: 1 });
  }, {
    accept: ({ request, community, webhooks }) => {
      assert.equal(request.url, "http://127.0.0.1/hooks");
      assert.equal(community.tenantId, "tenant-a");
      assert.deepEqual(webhooks.map((w) => w.id), ["hook-a"]);
      return allow;
    },
  });
});
