// `cli receive`'s stderr line of a 5xx named the header's tenant id whole: a
// request to the receiver while its KV is lost is answered 500 before any
// signature is checked (no community can be read), so anyone could have each
// such line carry a made-up tenant id of up to 1 KiB, six times that once its
// control characters are escaped. The id is now cut short, and says so.

import assert from "node:assert/strict";
import { signJiveExtn } from "../../../webhooks/mod.ts";
import { ROOT, withSetup } from "./_cli_setup.ts";
import { withLostServer } from "./_kv_front.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";

/** The test's own bound on the run: the KV's limit (2 s) plus ample slack for a loaded machine. */
const BOUND_MS = 25_000;

Deno.test("cli receive: a 5xx line names a forged 1,000-character tenant id cut short, not whole", async () => {
  await withSetup(async (kv) => {
    await withLostServer(
      "never",
      async (front) => {
        const child = new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", "webhooks/cli.ts", "receive", "--port", "0", "--kv", front.url],
          cwd: ROOT,
          env: { NO_COLOR: "1", DENO_KV_ACCESS_TOKEN: TEST_TOKEN, KV_TIMEOUT_SECONDS: "2" },
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        const timer = setTimeout(() => child.kill("SIGKILL"), BOUND_MS);
        const stdout = new Response(child.stdout).text();
        const errLines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
        let seen = "";
        try {
          while (!/http:\/\/[\d.]+:\d+\//.test(seen)) {
            const read = await errLines.read();
            if (read.done) throw new Error(`receive did not start: ${seen}`);
            seen += read.value;
          }
          const url = new URL(seen.match(/http:\/\/[\d.]+:\d+\//)![0]);
          await front.lose();
          const tenantId = "\u001b".repeat(1000);
          const authorization = await signJiveExtn(
            { clientId: "anyone", jiveUrl: "https://forged.example", tenantId, timestamp: Date.now() },
            btoa("not-a-secret-of-any-community"),
          );
          const res = await fetch(new URL("/hooks", url), { method: "POST", headers: { authorization }, body: "[]" });
          await res.body?.cancel();
          assert.ok(res.status >= 500, `the forged postback's answer: ${res.status}`);
          child.kill("SIGTERM");
          for (let r = await errLines.read(); !r.done; r = await errLines.read()) seen += r.value;
          await child.status;
          const lines = seen.split("\n").filter((line) => /^\d{4}-\d\d-\d\dT.* 5\d\d /.test(line));
          assert.equal(lines.length, 1, `not one line for the one 5xx: ${seen.slice(0, 500)}`);
          assert.ok(lines[0].length < 600, `the line is ${lines[0].length} characters: ${lines[0].slice(0, 200)}…`);
          assert.match(
            lines[0],
            /tenant "(\\u001b){10,}…"/,
            `the tenant id is not shown cut: ${lines[0].slice(0, 200)}`,
          );
          assert.equal(await stdout, "");
        } finally {
          clearTimeout(timer);
          try {
            child.kill("SIGKILL");
          } catch {
            // already ended
          }
          await child.status;
        }
      },
      undefined,
      kv,
    );
  });
});
