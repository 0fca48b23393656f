// The console run out of file descriptors by held connections (a slow client, an attacker, a burst of postbacks):
// Deno.serve's accept fails ("Too many open files") and its `finished` rejects. Unhandled, that rejection ended the
// process for good, and every later postback was lost until someone restarted it. The console now says so in plain
// words, refuses new connections while descriptors are short, and serves again once they are back.

import { endChild } from "../_child.ts";
import { assertSaidThenStops, exhaust, gather, limitedCommand, untilAnswers } from "../_descriptors.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
/** Room to start the console (it starts with 40), and far fewer than the connections the test opens. */
const LIMIT = 64;

Deno.test("the console run out of file descriptors by held connections keeps running and serves again once they close", async () => {
  const child = limitedCommand(LIMIT, ["run", "-A", "--config", `${ROOT}deno.json`, "console/main.ts"], {
    cwd: ROOT,
    env: { PORT: "0", HOST: "127.0.0.1", KV_PATH: ":memory:", SANDBOX: "on" },
  }).spawn();
  const out = gather(child.stdout);
  const err = gather(child.stderr);
  try {
    await out.until(/listening on http:\/\/\S+:\d+/);
    const origin = /listening on (http:\/\/\S+:\d+)/.exec(out.text())![1];
    // Until the first accept that finds no descriptor: the console says so (or, before, died).
    await exhaust("127.0.0.1", Number(new URL(origin).port), LIMIT * 3, err);
    await untilAnswers(`${origin}/healthz`, 200, err);
    await untilAnswers(`${origin}/`, 302, err);
    // A stop after the episode is the stop it always was: the process ends on its own, with status 0.
    await assertSaidThenStops(child, err, "SIGTERM", true);
  } finally {
    await endChild(child, "SIGKILL", 5_000);
  }
});
