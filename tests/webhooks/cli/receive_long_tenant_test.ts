/**
 * A community whose tenant id is longer than 1,024 bytes, as `communities add`
 * stores it (the limit is what the keys of its webhooks hold: 1,999 bytes),
 * has its postbacks taken by `receive`, and one of a tenant id over that
 * limit is still refused as any unknown tenant is (401, nothing printed).
 */

import assert from "node:assert/strict";
import { createWebhooks, signJiveExtn } from "../../../webhooks/mod.ts";
import { cli } from "./_cli_setup.ts";
import { startReceive } from "./_receive_child.ts";
import { endChild } from "../../_child.ts";

const SECRET = btoa(`long tenant secret ${crypto.randomUUID()}`);
const REF = "https://acme.example/api/core/v3/webhooks/7";

Deno.test("cli receive takes the postbacks of a community whose tenant id is 1,500 bytes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_long_tenant_" });
  const kvPath = `${dir}/webhooks.kv`;
  const tenantId = `t-${"é".repeat(749)}`; // 1,500 bytes of UTF-8
  assert.equal(new TextEncoder().encode(tenantId).byteLength, 1500);
  try {
    const added = await cli([
      "communities",
      "add",
      "--kv",
      kvPath,
      "--name",
      "Acme",
      "--tenant",
      tenantId,
      "--base-url",
      "https://acme.example",
      "--client-id",
      "client-1",
      "--client-secret",
      SECRET,
    ]);
    assert.equal(added.code, 0, added.stderr);
    const kv = await Deno.openKv(kvPath);
    await createWebhooks(kv).save({ id: "h7", tenantId, entity: { resources: { self: { ref: REF } } } });
    kv.close();

    const receive = await startReceive(kvPath);
    try {
      const post = async (tenant: string) => {
        const authorization = await signJiveExtn(
          { clientId: "client-1", jiveUrl: "https://acme.example", tenantId: tenant },
          SECRET,
        );
        const body = JSON.stringify([{ webhook: REF, activity: { verb: "jive:created" } }]);
        const res = await fetch(new URL("hooks", receive.url), { method: "POST", headers: { authorization }, body });
        return `${res.status} ${await res.text()}`;
      };
      assert.equal(await post(tenantId), '200 {"received":1}');
      assert.equal(
        await post(`t-${"é".repeat(1000)}`),
        '401 {"error":"Unauthorized: JiveEXTN signature does not match"}',
      );
    } finally {
      await endChild(receive.child, "SIGINT");
    }
    const lines = (await receive.stdout).trim().split("\n");
    assert.equal(lines.length, 1);
    assert.equal(JSON.parse(lines[0]).tenantId, tenantId);
    assert.ok(!(await receive.stderr).includes(SECRET));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
