// `--kv HTTP://...` (a scheme in capitals, as some tools write URLs; a URL's scheme has no case): Deno.openKv takes
// it for a file path, so the CLI failed with "unable to open" where the same URL in lower case works. The console
// opens such a KV_PATH as the KV Connect URL it is; the CLI must too, on the same server and with the same records.

import assert from "node:assert/strict";
import { startKvConnectServer } from "../../../kvconnect/mod.ts";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { main } from "../../../webhooks/cli.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";

Deno.test("cli --kv with a KV Connect URL whose scheme is in capitals opens that database", async () => {
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const server = await startKvConnectServer({ path: ":memory:", token: TEST_TOKEN });
  const kv = await Deno.openKv(server.url);
  try {
    await createWebhooks(kv).communities.save({ name: "Acme", tenantId: "t-acme", baseUrl: "https://acme.example" });
    const out: string[] = [];
    const err: string[] = [];
    const shouted = server.url.replace(/^http/, "HTTP");
    assert.notEqual(shouted, server.url);
    const code = await main(["communities", "list", "--kv", shouted, "--json"], {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      env: () => undefined,
    });
    assert.equal(code, 0, err.join("\n"));
    assert.deepEqual(JSON.parse(out.join("\n")).map((c: { name: string }) => c.name), ["Acme"]);
  } finally {
    kv.close();
    await server.close();
  }
});
