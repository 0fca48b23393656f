// A request with a method its route does not serve (GET /oauth2/token, PUT
// /oauth2/authorize, PATCH on a webhook) is answered 405 with `Allow` and a
// body in the shape the route's clients read: RFC 6749 JSON from the token
// and userinfo endpoints, the error page from the authorization endpoint,
// the platform's error body (after the anti-hijacking line) from the REST
// API, `{ error }` from the trigger and redelivery; not Hono's bare
// "404 Not Found" text, nor a 404 that says the resource is missing.

import assert from "node:assert/strict";
import { ANTI_HIJACKING_PREFIX } from "../../sandbox/mod.ts";
import { withServed } from "./_served.ts";

async function jiveBody(res: Response): Promise<unknown> {
  const text = await res.text();
  assert.ok(text.startsWith(ANTI_HIJACKING_PREFIX), `no anti-hijacking line in ${text.slice(0, 80)}`);
  return JSON.parse(text.slice(ANTI_HIJACKING_PREFIX.length));
}

Deno.test("sandbox: a wrong method on an OAuth endpoint is 405 with Allow, in the endpoint's own shape", async () => {
  await withServed(async ({ base }) => {
    const token = await fetch(`${base}/oauth2/token`);
    assert.equal(token.status, 405);
    assert.equal(token.headers.get("allow"), "POST");
    assert.equal(token.headers.get("cache-control"), "no-store");
    assert.deepEqual(await token.json(), {
      error: "invalid_request",
      error_description: "The method GET is not allowed on /sandbox/oauth2/token: use POST",
    });

    const authorize = await fetch(`${base}/oauth2/authorize`, { method: "PUT" });
    assert.equal(authorize.status, 405);
    assert.equal(authorize.headers.get("allow"), "GET, HEAD, POST");
    assert.match(authorize.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(
      await authorize.text(),
      /id="error">The method PUT is not allowed on \/sandbox\/oauth2\/authorize: use GET, HEAD or POST</,
    );

    const userinfo = await fetch(`${base}/oauth2/userinfo`, { method: "DELETE" });
    assert.equal(userinfo.status, 405);
    assert.equal(userinfo.headers.get("allow"), "GET, HEAD, POST");
    assert.equal((await userinfo.json() as { error: string }).error, "invalid_request");

    // HEAD of a POST-only endpoint: the same status and Allow, no body.
    const head = await fetch(`${base}/oauth2/token`, { method: "HEAD" });
    assert.deepEqual([head.status, head.headers.get("allow"), await head.text()], [405, "POST", ""]);
  });
});

Deno.test("sandbox: a wrong method on the REST API is 405 with Allow and the platform's error body", async () => {
  await withServed(async ({ base, sandbox, origin, callback }) => {
    const hook = await sandbox.createHook(origin, { events: ["user_account"], callback }) as { id: string };
    const cases: [string, string, string][] = [
      ["PATCH", `/api/core/v3/webhooks/${hook.id}`, "GET, HEAD, PUT, DELETE"],
      ["POST", `/api/core/v3/webhooks/${hook.id}`, "GET, HEAD, PUT, DELETE"],
      ["DELETE", "/api/core/v3/webhooks", "GET, HEAD, POST"],
      ["PUT", "/api/core/v3/places/1000", "GET, HEAD"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await fetch(`${base}${path}`, { method });
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.equal(res.headers.get("allow"), allow, `${method} ${path}`);
      const message = `The method ${method} is not allowed on /sandbox${path}: use ${
        allow.replace(/, (\w+)$/, " or $1")
      }`;
      assert.deepEqual(await jiveBody(res), { error: { status: 405, message } });
    }
    // The hook is untouched, and a path the API does not have is still a 404.
    assert.equal((await sandbox.listHooks()).length, 1);
    const none = await fetch(`${base}/api/core/v3/nothing`, { method: "PATCH" });
    assert.equal(none.status, 404);
    assert.equal(none.headers.get("allow"), null);
    await none.body?.cancel();
  });
});

Deno.test("sandbox: a wrong method on the trigger or redelivery is 405 with Allow and { error }", async () => {
  await withServed(async ({ base }) => {
    for (const path of ["/trigger", "/redeliver"]) {
      const res = await fetch(`${base}${path}`);
      assert.equal(res.status, 405, path);
      assert.equal(res.headers.get("allow"), "POST", path);
      assert.deepEqual(await res.json(), { error: `The method GET is not allowed on /sandbox${path}: use POST` });
    }
  });
});
