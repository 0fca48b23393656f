// `deno task sandbox` (sandbox/main.ts) run out of file descriptors by held connections: Deno.serve's accept fails
// ("Too many open files") and its `finished` rejects, which ended the process. It now says so in plain words and serves
// again once the connections close.

import { endChild } from "../_child.ts";
import { assertSaidThenStops, exhaust, gather, limitedCommand, untilAnswers } from "../_descriptors.ts";

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
  try {
    await out.until(/Sandbox community on http:\/\/\S+:\d+\/sandbox/);
    const origin = /Sandbox community on (http:\/\/\S+:\d+)\/sandbox/.exec(out.text())![1];
    await exhaust("127.0.0.1", Number(new URL(origin).port), LIMIT * 3, err);
    await untilAnswers(`${origin}/`, 302, err);
    await assertSaidThenStops(child, err, "SIGINT", false);
  } finally {
    await endChild(child, "SIGKILL", 5_000);
  }
});
