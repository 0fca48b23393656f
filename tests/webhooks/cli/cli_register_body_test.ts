// API.md's `hooks register --community NAME --events a,b [--object URL]
// --callback URL` is `register`: SPEC.md 4.1's POST with the body
// {events, object, callback}, the events as an array in the order given.
// `hooks unregister ID` is `unregister`: DELETE {base}/api/core/v3/webhooks/{entity.id}.

import assert from "node:assert/strict";
import { cli, noSecrets, withSetup } from "./_cli_setup.ts";

const PLACE = "https://acme.example/api/core/v3/places/42";
const CALLBACK = "https://me.example/hooks/content";

Deno.test("cli hooks register --events a,b --object sends {events: [a, b], object, callback} and stores the record", async () => {
  await withSetup(async (kv, platform) => {
    const args = ["hooks", "register", "--kv", kv, "--community", "Acme", "--events", "document,discussion"];
    const run = await cli([...args, "--object", PLACE, "--callback", CALLBACK, "--json"]);
    assert.equal(run.code, 0, run.stderr);
    noSecrets(run);
    const posts = platform.requests("POST", "/api/core/v3/webhooks");
    assert.equal(posts.length, 1);
    assert.equal(posts[0].authorization, "Bearer good-token");
    assert.equal(posts[0].search, "");
    assert.deepEqual(JSON.parse(posts[0].body), {
      events: ["document", "discussion"],
      object: PLACE,
      callback: CALLBACK,
    });
    const shown = JSON.parse(run.stdout);
    const stored = JSON.parse((await cli(["hooks", "list", "--kv", kv, "--json"])).stdout);
    assert.equal(stored.length, 1);
    assert.equal(stored[0].tenantId, "tenant-acme");
    assert.equal(stored[0].entity.object, PLACE);
    assert.deepEqual(stored[0].entity.events, ["document", "discussion"]);
    assert.equal(stored[0].entity.id, shown.entity.id);

    const gone = await cli(["hooks", "unregister", stored[0].id, "--kv", kv]);
    assert.equal(gone.code, 0, gone.stderr);
    const [deleted] = platform.requests("DELETE");
    assert.equal(deleted.path, `/api/core/v3/webhooks/${shown.entity.id}`);
    assert.equal(deleted.authorization, "Bearer good-token");
    assert.deepEqual(await platform.listHooks(), []);

    const again = await cli(["hooks", "unregister", stored[0].id, "--kv", kv]);
    assert.equal(again.code, 1);
    assert.equal(again.stdout, "");
    assert.match(again.stderr, /^Error: .+\n$/);
    assert.equal(platform.requests("DELETE").length, 1);
  });
});
