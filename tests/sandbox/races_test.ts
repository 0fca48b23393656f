// The sandbox under requests at the same moment, as a busy platform sees them:
// many registrations at once each get an id, a PUT never brings back a hook a
// DELETE removed, of two DELETEs one finds the hook; and its clock (`now`)
// ends refresh tokens as it ends access tokens.

import assert from "node:assert/strict";
import { Hono } from "hono";
import { ANTI_HIJACKING_PREFIX, createSandbox, type Sandbox } from "../../sandbox/mod.ts";

interface Served {
  sandbox: Sandbox;
  base: string;
  clock: { now: number };
  /** A request to the API with the bearer token `a`. */
  api(path: string, init?: RequestInit): Promise<Response>;
}

async function withServed(fn: (served: Served) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const clock = { now: Date.now() };
  const sandbox = createSandbox({
    kv,
    now: () => clock.now,
    communityClient: { clientId: "c-1", clientSecret: "s-1" },
  });
  const app = new Hono();
  app.route("/sandbox", sandbox.app);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.fetch);
  const base = `http://127.0.0.1:${server.addr.port}/sandbox`;
  try {
    await sandbox.issueTokens({ accessToken: "a", refreshToken: "r" });
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${base}/api/core/v3${path}`, {
        ...init,
        headers: { Authorization: "Bearer a", "Content-Type": "application/json" },
      });
    await fn({ sandbox, base, clock, api });
  } finally {
    await server.shutdown();
    kv.close();
  }
}

const parse = async (res: Response) => JSON.parse((await res.text()).replace(ANTI_HIJACKING_PREFIX, ""));
const HOOK = JSON.stringify({ events: ["user_account"], callback: "https://me.example/cb" });

Deno.test("sandbox: sixty registrations at once each get 200 and an id of their own", async () => {
  await withServed(async ({ api }) => {
    // Before: ids came from one counter raced for by every request, and past 20 lost tries a request answered 500.
    const answers = await Promise.all(
      Array.from({ length: 60 }, () => api("/webhooks", { method: "POST", body: HOOK })),
    );
    assert.deepEqual(answers.map((res) => res.status), answers.map(() => 200));
    const ids = await Promise.all(answers.map(async (res) => (await parse(res)).id as string));
    assert.equal(new Set(ids).size, 60);
    const listed = await parse(await api("/webhooks?count=100"));
    assert.deepEqual(listed.list.map((hook: { id: string }) => hook.id).sort(), [...ids].sort());
  });
});

Deno.test("sandbox: a PUT at the moment of a DELETE never brings the hook back, and of two DELETEs one gets 404", async () => {
  await withServed(async ({ api }) => {
    for (let round = 0; round < 20; round++) {
      const { id } = await parse(await api("/webhooks", { method: "POST", body: HOOK }));
      const [put, del] = await Promise.all([
        api(`/webhooks/${id}`, { method: "PUT", body: HOOK }),
        api(`/webhooks/${id}`, { method: "DELETE" }),
      ]);
      await put.body?.cancel();
      assert.equal(del.status, 204);
      assert.ok(put.status === 200 || put.status === 404, `PUT answered ${put.status}`);
      const after = await api(`/webhooks/${id}`);
      await after.body?.cancel();
      assert.equal(after.status, 404, `round ${round}: the deleted hook is back (the PUT answered ${put.status})`);

      const again = await parse(await api("/webhooks", { method: "POST", body: HOOK }));
      const deletes = await Promise.all([1, 2].map(() => api(`/webhooks/${again.id}`, { method: "DELETE" })));
      for (const res of deletes) await res.body?.cancel();
      assert.deepEqual(deletes.map((res) => res.status).sort(), [204, 404], `round ${round}`);
    }
  });
});

Deno.test("sandbox: a refresh token ends after 30 days by the sandbox's clock", async () => {
  await withServed(async ({ base, clock }) => {
    const grant = (refresh: string) =>
      fetch(`${base}/oauth2/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa("c-1:s-1")}` },
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refresh }),
      });
    const first = await grant("r");
    assert.equal(first.status, 200);
    const { refresh_token } = await first.json();
    clock.now += 29 * 24 * 3600 * 1000;
    const fresh = await grant(refresh_token);
    assert.equal(fresh.status, 200);
    const renewed = await fresh.json();
    clock.now += 31 * 24 * 3600 * 1000;
    const late = await grant(renewed.refresh_token);
    assert.equal(late.status, 400);
    assert.deepEqual(await late.json(), { error: "invalid_grant", error_description: "The refresh token has expired" });
  });
});

Deno.test("sandbox: a trigger naming an empty webhookId is refused, not sent to every hook", async () => {
  await withServed(async ({ base }) => {
    const res = await fetch(`${base}/trigger`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ webhookId: "" }),
    });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /'webhookId' must be a non-empty string/);
  });
});
