// `hooks unregister` as a process against a platform on 127.0.0.1 that fails
// the DELETE (API.md: "A failed platform request ... stores nothing
// locally"; exit 1 with "the message on stderr, no stack trace"; secrets
// "never printed"): a 500 whose body quotes the access token, and a 404 that
// is an HTML page (a web server's, not the webhooks API). The record stays,
// and a 204 afterwards removes it, with 0.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { cli, type Run } from "./_cli_setup.ts";
import { withKvFile } from "./_add_setup.ts";

const ACCESS = "access-token-never-shown";
const REFRESH = "refresh-token-never-shown";
const CLIENT_SECRET = "client-secret-never-shown";

/** Answers each DELETE with the next of `answers`; a renewal (`/oauth2/token`) is refused. */
function platform(answers: (() => Response)[]): { url: string; deletes: string[]; close(): Promise<void> } {
  const deletes: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    if (req.method !== "DELETE") return new Response("no", { status: 400 });
    deletes.push(new URL(req.url).pathname);
    return (answers.shift() ?? (() => new Response(null, { status: 204 })))();
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, deletes, close: () => server.shutdown() };
}

async function seed(path: string, baseUrl: string): Promise<void> {
  const kv = await Deno.openKv(path);
  try {
    const hooks = createWebhooks(kv);
    await hooks.communities.save({
      name: "Acme",
      tenantId: "t-acme",
      baseUrl,
      clientId: "client-1",
      clientSecret: CLIENT_SECRET,
      oauth: { access_token: ACCESS, refresh_token: REFRESH },
    });
    await hooks.save({ id: "h1", tenantId: "t-acme", entity: { id: "77" } } as never);
  } finally {
    kv.close();
  }
}

async function stored(path: string): Promise<boolean> {
  const kv = await Deno.openKv(path);
  try {
    return (await createWebhooks(kv).findByID("h1")) !== null;
  } finally {
    kv.close();
  }
}

function failedCleanly(run: Run, message: RegExp): void {
  assert.equal(run.code, 1, run.stderr);
  assert.equal(run.stdout, "");
  assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
  assert.match(run.stderr, message);
  assert.doesNotMatch(run.stderr, /\n\s+at /);
  for (const secret of [ACCESS, REFRESH, CLIENT_SECRET]) assert.ok(!run.stderr.includes(secret), "a secret printed");
}

Deno.test("cli hooks unregister: a failing platform exits 1 in one line, no secret, the record kept; a 204 removes it", async () => {
  const fake = platform([
    () => new Response(`internal error for token ${ACCESS}`, { status: 500 }),
    () =>
      new Response("<html><body>Not Found</body></html>", { status: 404, headers: { "content-type": "text/html" } }),
  ]);
  try {
    await withKvFile("cli_unregister_fail_", async (path) => {
      await seed(path, fake.url);
      const unregister = () => cli(["hooks", "unregister", "h1", "--kv", path]);
      failedCleanly(await unregister(), /^Error: DELETE .*\/api\/core\/v3\/webhooks\/77 failed with status 500/);
      assert.ok(await stored(path), "the record was removed after a 500");
      failedCleanly(await unregister(), /^Error: DELETE .* failed with status 404: .*HTML page/);
      assert.ok(await stored(path), "the record was removed after an HTML 404");
      const gone = await unregister();
      assert.equal(gone.code, 0, gone.stderr);
      assert.ok(!(gone.stdout + gone.stderr).includes(ACCESS));
      assert.equal(await stored(path), false);
      assert.deepEqual(fake.deletes, Array(3).fill("/api/core/v3/webhooks/77"));
    });
  } finally {
    await fake.close();
  }
});
