import assert from "node:assert/strict";
import { startConsole } from "./_helpers.ts";

Deno.test("GET /healthz answers 200 while the KV answers", async () => {
  const t = await startConsole();
  try {
    const res = await fetch(`${t.origin}/healthz`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: "ok" });
  } finally {
    await t.close();
  }
});

Deno.test("GET /healthz answers 503 once the KV is closed", async () => {
  const t = await startConsole();
  try {
    t.kv.close();
    const res = await t.app.app.request("/healthz");
    assert.equal(res.status, 503);
    await res.body?.cancel();
  } finally {
    await t.app.close();
    await t.close().catch(() => {});
  }
});
