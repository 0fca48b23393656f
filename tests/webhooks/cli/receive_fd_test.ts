// `cli receive` run out of file descriptors by held connections: Deno.serve's accept fails ("Too many open files") and
// its `finished` rejects. receive awaited that promise, so the command ended with the error, and every later postback
// was lost until someone started it again. It now says so on stderr in plain words, refuses new connections while
// descriptors are short, and receives again once they are back.

import assert from "node:assert/strict";
import { signJiveExtn } from "../../../webhooks/mod.ts";
import { endChild } from "../../_child.ts";
import { assertSaidThenStops, exhaust, gather, limitedCommand } from "../../_descriptors.ts";
import { ACME_HOOK_REF, ROOT, SECRET, seedAcmeHook, withSetup } from "./_cli_setup.ts";

/** Room to start `receive`, and far fewer than the connections the test opens. */
const LIMIT = 64;

/** Posts one signed postback of hook h7 to `url`; resolves its status, or the error that kept it from an answer. */
async function postback(url: URL): Promise<number | string> {
  const authorization = await signJiveExtn(
    { clientId: "client-1", jiveUrl: "https://acme.example", tenantId: "tenant-acme", timestamp: Date.now() },
    SECRET,
  );
  const body = JSON.stringify([{ webhook: ACME_HOOK_REF, activity: { verb: "jive:created", title: "Back" } }]);
  try {
    const res = await fetch(new URL("/hooks", url), {
      method: "POST",
      headers: { authorization, "content-type": "application/json" },
      body,
    });
    await res.body?.cancel();
    return res.status;
  } catch (error) {
    return String(error);
  }
}

Deno.test("cli receive run out of file descriptors by held connections runs on and receives again once they close", async () => {
  await withSetup(async (kv) => {
    await seedAcmeHook(kv);
    const child = limitedCommand(LIMIT, ["run", "-A", "webhooks/cli.ts", "receive", "--port", "0", "--kv", kv], {
      cwd: ROOT,
    }).spawn();
    const out = gather(child.stdout);
    const err = gather(child.stderr);
    try {
      await err.until(/Receiving postbacks on http:\/\/[\d.]+:\d+\//);
      const url = new URL(/http:\/\/[\d.]+:\d+\//.exec(err.text())![0]);
      // Until the first accept that finds no descriptor: receive says so (or, before, ended).
      await exhaust(url.hostname, Number(url.port), LIMIT * 3, err);
      const deadline = Date.now() + 30_000;
      let answer: number | string = "none yet";
      while (answer !== 200) {
        assert.ok(!err.ended(), `receive ended (the last postback: ${answer}); its stderr: ${err.text()}`);
        assert.ok(Date.now() < deadline, `no postback taken within 30 s: ${answer}; stderr: ${err.text()}`);
        answer = await postback(url);
        if (answer !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      await out.until(/"title":"Back"/);
      // Ctrl-C after the episode ends it as it always did: status 0.
      await assertSaidThenStops(child, err, "SIGINT", true);
    } finally {
      await endChild(child, "SIGKILL", 5_000);
    }
  });
});
