// `cli receive` with its KV lost for the tests of its 5xx stderr lines: a child served over a KV Connect server that
// refuses every request at once (the token revoked, so each KV operation fails without wait), forged postbacks that
// it answers 500 (before any signature is checked) and unsigned ones it answers 401 (no KV needed), and its stderr's
// 5xx lines once it is stopped.

import assert from "node:assert/strict";
import { signJiveExtn } from "../../../webhooks/mod.ts";
import { startReceive } from "./_receive_child.ts";
import { withLostServer } from "./_kv_front.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";

/** What a test sends to the child, and how it stops it. */
export interface Outage {
  /** Sends a forged postback of tenant `forged-{i}` and checks it was answered 500 or more. */
  forged(i: number): Promise<void>;
  /** Sends a postback with no Authorization header; its status. */
  unsigned(): Promise<number>;
  /** Stops the child (SIGTERM), checks it printed nothing on stdout, and gives its 5xx lines and `… ` lines. */
  stop(): Promise<string[]>;
}

const revoked = () => new Response("Invalid access token.", { status: 401, headers: { "content-type": "text/plain" } });

/** Runs `fn` with a `cli receive` child whose KV is lost; the child is killed after it. */
export async function withReceiveOutage(fn: (outage: Outage) => Promise<void>): Promise<void> {
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
      await fn({
        forged: async (i) => {
          const authorization = await signJiveExtn(
            { clientId: "anyone", jiveUrl: "https://forged.example", tenantId: `forged-${i}`, timestamp: Date.now() },
            btoa("not-a-secret-of-any-community"),
          );
          assert.ok(await post(authorization) >= 500, "a forged postback not answered 5xx with the KV lost");
        },
        unsigned: () => post(),
        stop: async () => {
          child.kill("SIGTERM");
          await child.status;
          assert.equal(await stdout, "");
          return (await stderr).split("\n").filter((line) => /^\d{4}-\S+Z 5\d\d /.test(line) || line.startsWith("… "));
        },
      });
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // already ended
      }
      await child.status;
    }
  }, revoked);
}
