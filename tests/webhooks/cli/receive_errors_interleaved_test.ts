// With its KV lost, `cli receive` answers a forged postback 500 (before any signature is checked) and one without an
// Authorization header 401 (no KV needed). If any answer under 500 ended a run of 5xx lines, anyone could send one
// unsigned postback after each forged one and have every 5xx line printed in full: the coalescing would be undone
// by the sender. Only an accepted postback (a 2xx, which takes a community's secret) or the stop ends a run.

import assert from "node:assert/strict";
import { signJiveExtn } from "../../../webhooks/mod.ts";
import { startReceive } from "./_receive_child.ts";
import { withLostServer } from "./_kv_front.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";

/** A KV Connect server that refuses every request at once (the token revoked): each KV operation fails without wait. */
const revoked = () => new Response("Invalid access token.", { status: 401, headers: { "content-type": "text/plain" } });

const PAIRS = 60;

Deno.test("cli receive: unsigned postbacks (401) between forged ones (500) do not end the run of 5xx lines", async () => {
  await withLostServer("never", async (front) => {
    const env = { NO_COLOR: "1", DENO_KV_ACCESS_TOKEN: TEST_TOKEN, KV_TIMEOUT_SECONDS: "5" };
    const { child, url, stdout, stderr } = await startReceive(front.url, { env, boundMs: 60_000 });
    try {
      await front.lose();
      const post = async (authorization?: string) => {
        const headers: HeadersInit = authorization ? { authorization } : {};
        const res = await fetch(new URL("/hooks", url), { method: "POST", headers, body: "[]" });
        await res.body?.cancel();
        return res.status;
      };
      for (let i = 1; i <= PAIRS; i++) {
        const authorization = await signJiveExtn(
          { clientId: "anyone", jiveUrl: "https://forged.example", tenantId: `forged-${i}`, timestamp: Date.now() },
          btoa("not-a-secret-of-any-community"),
        );
        assert.ok(await post(authorization) >= 500, "a forged postback not answered 5xx with the KV lost");
        assert.equal(await post(), 401);
      }
      child.kill("SIGTERM");
      await child.status;
      assert.equal(await stdout, "");
      const lines = (await stderr).split("\n").filter((line) =>
        /^\d{4}-\S+Z 5\d\d /.test(line) || line.startsWith("… ")
      );
      const expected = [
        /^\S+Z 5\d\d tenant "forged-1": /,
        /^\S+Z 5\d\d tenant "forged-2": /,
        /^\S+Z 5\d\d tenant "forged-3": /,
        new RegExp(
          `^… ${PAIRS - 3} more answers of 500 or more, ${PAIRS - 3} of the run of ${PAIRS} not shown in full; ` +
            `the last: \\S+Z 5\\d\\d tenant "forged-${PAIRS}": .*; ended by the stop$`,
        ),
      ];
      assert.equal(lines.length, expected.length, `stderr:\n${lines.join("\n").slice(0, 3000)}`);
      expected.forEach((pattern, i) => assert.match(lines[i], pattern));
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // already ended
      }
      await child.status;
    }
  }, revoked);
});
