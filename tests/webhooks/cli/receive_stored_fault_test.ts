/**
 * `cli receive` refused every postback of a community added without a client
 * secret (or whose stored record was damaged) with a 401 and said nothing: a
 * 4xx is never said, so that anyone's forged postbacks cannot flood stderr.
 * An operator trying `receive` for the first time saw only silence. Now a 401
 * whose cause is the stored community (no secret, a secret that cannot
 * verify, a damaged record) is said once per tenant, with the fix; a forged
 * postback to a sound community, or one naming an unknown tenant, still says
 * nothing.
 */

import assert from "node:assert/strict";
import { createWebhooks, signJiveExtn } from "../../../webhooks/mod.ts";
import { cli } from "./_cli_setup.ts";
import { startReceive } from "./_receive_child.ts";
import { endChild } from "../../_child.ts";

const SECRET = btoa(`stored fault secret ${crypto.randomUUID()}`);
const REF = "https://acme.example/api/core/v3/webhooks/7";

Deno.test("cli receive says once per tenant when its stored community refuses every postback, and nothing for forgeries", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_stored_fault_" });
  const kvPath = `${dir}/webhooks.kv`;
  try {
    const add = async (name: string, tenant: string, secret: string[]) => {
      const argv = ["communities", "add", "--kv", kvPath, "--name", name, "--tenant", tenant];
      const added = await cli([...argv, "--base-url", "https://acme.example", "--client-id", "client-1", ...secret]);
      assert.equal(added.code, 0, added.stderr);
    };
    await add("Sound", "t-sound", ["--client-secret", SECRET]);
    await add("Bare", "t-bare", []);
    await add("Broken", "t-broken", ["--client-secret", SECRET]);
    const kv = await Deno.openKv(kvPath);
    const hooks = createWebhooks(kv);
    for (const tenantId of ["t-sound", "t-bare", "t-broken"]) {
      await hooks.save({ id: `h-${tenantId}`, tenantId, entity: { resources: { self: { ref: REF } } } });
    }
    await kv.set(["community", "t-broken"], { name: 7 }); // edited by hand into junk
    kv.close();

    const receive = await startReceive(kvPath);
    let stderr = "";
    try {
      const post = async (tenantId: string, secret = SECRET) => {
        const authorization = await signJiveExtn(
          { clientId: "client-1", jiveUrl: "https://acme.example", tenantId },
          secret,
        );
        const body = JSON.stringify([{ webhook: REF, activity: { verb: "jive:created" } }]);
        const res = await fetch(new URL("hooks", receive.url), { method: "POST", headers: { authorization }, body });
        await res.body?.cancel();
        return res.status;
      };
      for (let i = 0; i < 3; i++) {
        assert.equal(await post("t-bare"), 401);
        assert.equal(await post("t-broken"), 401);
        assert.equal(await post("t-sound", btoa("a forger's guess")), 401);
        assert.equal(await post("t-nobody"), 401);
      }
      assert.equal(await post("t-sound"), 200);
    } finally {
      await endChild(receive.child, "SIGINT");
      stderr = await receive.stderr;
    }
    assert.ok(!stderr.includes(SECRET), "a secret on stderr");
    const about = (tenant: string) => stderr.split("\n").filter((line) => line.includes(`"${tenant}"`));
    const bare = about("t-bare");
    assert.equal(bare.length, 1, `not one line for the community without a secret:\n${stderr}`);
    assert.match(bare[0], /\b401\b.*client secret/, bare[0]);
    assert.match(bare[0], /communities add --tenant t-bare --client-secret/, bare[0]);
    const broken = about("t-broken");
    assert.equal(broken.length, 1, `not one line for the damaged community:\n${stderr}`);
    assert.match(broken[0], /\b401\b.*damaged/, broken[0]);
    assert.equal(about("t-sound").length, 0, `a forged postback was said:\n${stderr}`);
    assert.equal(about("t-nobody").length, 0, `an unknown tenant was said:\n${stderr}`);
    assert.equal((await receive.stdout).trim().split("\n").length, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
