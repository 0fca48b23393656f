// The sandbox's refusals that come before a route reads its input (a body
// over 64 KiB, a form posted from another site) say what is wrong in the
// shape the route's clients read: RFC 6749 JSON from the token endpoint,
// the 400 page's layout from the consent form, `{ error }` from the trigger
// and redelivery, not a bare "Payload Too Large" or "Forbidden".

import assert from "node:assert/strict";
import { withServed } from "./_served.ts";

const OVER = "x".repeat(70 * 1024);

Deno.test("sandbox: a body over 64 KiB is refused 413 by name, in each route's own shape", async () => {
  await withServed(async ({ base, origin }) => {
    const post = (path: string, type: string) =>
      fetch(`${base}${path}`, { method: "POST", headers: { "Content-Type": type, Origin: origin }, body: `a=${OVER}` });

    const token = await post("/oauth2/token", "application/x-www-form-urlencoded");
    assert.equal(token.status, 413);
    assert.equal(token.headers.get("cache-control"), "no-store");
    assert.deepEqual(await token.json(), {
      error: "invalid_request",
      error_description: "The request body is larger than 65536 bytes",
    });

    const consent = await post("/oauth2/authorize", "application/x-www-form-urlencoded");
    assert.equal(consent.status, 413);
    assert.match(consent.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(await consent.text(), /id="error">The form is larger than 65536 bytes</);

    for (const path of ["/trigger", "/redeliver"]) {
      const json = await post(path, "application/json");
      assert.equal(json.status, 413, path);
      assert.deepEqual(await json.json(), { error: "The request body is larger than 65536 bytes" }, path);
    }
    const form = await post("/trigger", "application/x-www-form-urlencoded");
    assert.equal(form.status, 413);
    assert.equal(await form.text(), "The form is larger than 65536 bytes");
  });
});

Deno.test("sandbox: a form posted from another site is refused 403 by name, the consent form with its error page", async () => {
  await withServed(async ({ base }) => {
    const variants: Record<string, string>[] = [{}, { Origin: "http://evil.example" }, {
      "Sec-Fetch-Site": "cross-site",
    }];
    for (const headers of variants) {
      const consent = await fetch(`${base}/oauth2/authorize`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
        body: "decision=approve",
        redirect: "manual",
      });
      assert.equal(consent.status, 403);
      assert.equal(consent.headers.get("location"), null);
      assert.match(consent.headers.get("content-type") ?? "", /^text\/html/);
      assert.match(await consent.text(), /id="error">The form was sent from another site/);

      const trigger = await fetch(`${base}/trigger`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
        body: "event=document",
        redirect: "manual",
      });
      assert.equal(trigger.status, 403);
      assert.match(await trigger.text(), /^The form was sent from another site/);
    }
  });
});

Deno.test("sandbox: a redeliver sent as a form (docs/sandbox.md) is refused 415 naming the content type, and sends nothing", async () => {
  let posts = 0;
  const app = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    posts++;
    await req.body?.cancel();
    return new Response("ok");
  });
  try {
    await withServed(async ({ base, origin, sandbox }) => {
      const callback = `http://127.0.0.1:${app.addr.port}/hook`;
      const id = String((await sandbox.createHook(origin, { events: ["user_account"], callback })).id);
      const { delivered: [sent] } = await sandbox.trigger({ webhookId: id });
      assert.equal(posts, 1);
      const res = await fetch(`${base}/redeliver`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: origin },
        body: new URLSearchParams({ webhookId: id, timestamp: String(sent.timestamp) }),
      });
      assert.equal(res.status, 415);
      assert.match((await res.json()).error, /Content-Type: application\/json/);
      assert.equal(posts, 1, "nothing sent again");
    });
  } finally {
    await app.shutdown();
  }
});
