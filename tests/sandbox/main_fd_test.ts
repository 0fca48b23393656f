// `deno task sandbox` (sandbox/main.ts) run out of file descriptors by held connections: Deno.serve's accept fails
// ("Too many open files") and its `finished` rejects, which ended the process. It now says so in plain words and serves
// again once the connections close.

import assert from "node:assert/strict";
import { endChild } from "../_child.ts";
import {
  assertSaidThenStops,
  closeAll,
  gather,
  holdConnections,
  limitedCommand,
  untilAnswers,
} from "../_descriptors.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
/** Room to start the sandbox, and far fewer than the connections the test opens. */
const LIMIT = 64;

Deno.test("the sandbox run out of file descriptors by held connections keeps running and serves again once they close", async () => {
  const child = limitedCommand(LIMIT, ["run", "-A", "--config", `${ROOT}deno.json`, "sandbox/main.ts"], {
    cwd: ROOT,
    env: { PORT: "0", HOST: "127.0.0.1" },
  }).spawn();
  const out = gather(child.stdout);
  const err = gather(child.stderr);
  let held: Deno.Conn[] = [];
  try {
    await out.until(/Sandbox community on http:\/\/\S+:\d+\/sandbox/);
    const origin = /Sandbox community on (http:\/\/\S+:\d+)\/sandbox/.exec(out.text())![1];
    held = await holdConnections("127.0.0.1", Number(new URL(origin).port), LIMIT * 3);
    assert.ok(held.length > 0, "no connection could be opened");
    await err.until(/too many open files/i);
    closeAll(held);
    held = [];
    await untilAnswers(`${origin}/`, 302, err);
    await assertSaidThenStops(child, err, "SIGINT", false);
  } finally {
    closeAll(held);
    await endChild(child, "SIGKILL", 5_000);
  }
});
