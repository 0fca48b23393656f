// `cli receive` printed one stderr line for each answer of 500 or more: with its KV lost under traffic (forged
// postbacks too are answered 500 then, before any signature is checked), stderr flooded, a line a request. A run
// of such answers now shows its first three lines in full, then one line per 100 more, naming the last; when a 2xx
// ends the run (or the command stops), one line says how many were not shown. By count, not time. A 4xx (here an
// unsigned postback's 401) neither ends the run nor is said (receive_errors_interleaved_test.ts).

import assert from "node:assert/strict";
import { signJiveExtn } from "../../../webhooks/mod.ts";
import { startReceive } from "./_receive_child.ts";
import { withLostServer } from "./_kv_front.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";

/** A KV Connect server that refuses every request at once (the token revoked): each KV operation fails without wait. */
const revoked = () => new Response("Invalid access token.", { status: 401, headers: { "content-type": "text/plain" } });

/** A line of one 5xx answer in full: the time first. */
const FULL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z 5\d\d tenant "forged-\d+": /;

Deno.test("cli receive: a run of 5xx answers shows three lines in full, then one per 100, then how many were not shown", async () => {
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
      const forged = async (i: number) => {
        const authorization = await signJiveExtn(
          { clientId: "anyone", jiveUrl: "https://forged.example", tenantId: `forged-${i}`, timestamp: Date.now() },
          btoa("not-a-secret-of-any-community"),
        );
        assert.ok(await post(authorization) >= 500, "a forged postback not answered 5xx with the KV lost");
      };
      for (let i = 1; i <= 250; i++) await forged(i);
      assert.equal(await post(), 401); // no Authorization header: not said, and the run goes on
      for (let i = 251; i <= 255; i++) await forged(i);
      child.kill("SIGTERM");
      await child.status;
      assert.equal(await stdout, "");
      const lines = (await stderr).split("\n").filter((line) => FULL.test(line) || line.startsWith("… "));
      const full = (n: number) => new RegExp(`^\\d{4}-.*Z 5\\d\\d tenant "forged-${n}": `);
      const last = (n: number) => `the last: \\d{4}-.*Z 5\\d\\d tenant "forged-${n}": `;
      const expected = [
        full(1),
        full(2),
        full(3),
        new RegExp(`^… 100 more answers of 500 or more; ${last(103)}`),
        new RegExp(`^… 100 more answers of 500 or more; ${last(203)}`),
        new RegExp(
          `^… 52 more answers of 500 or more, 252 of the run of 255 not shown in full; ${
            last(255)
          }.*; ended by the stop$`,
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
