// keepServing during an episode (held connections use up the process's descriptors, Deno.serve's accept fails): a
// signal aborted, shutdown() called twice at once, or unref() while the retry waits each let the process end on its
// own, `finished` settled once where it should (never rejected). With Deno.serve instead, `finished` rejects and the
// process ends with an uncaught error, which these runs would see.

import assert from "node:assert/strict";
import { endChild } from "../../_child.ts";
import { exhaust, gather, limitedCommand, untilAnswers } from "../../_descriptors.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
/** Room to start, and far fewer than the connections held. */
const LIMIT = 64;

/** Starts the child in `mode` and holds connections until it says it is out of descriptors; then lets them go. */
async function startEpisode(mode: string) {
  const child = limitedCommand(
    LIMIT,
    ["run", "-A", "--config", `${ROOT}deno.json`, "tests/webhooks/net/_episode_child.ts", mode],
    { cwd: ROOT },
  ).spawn();
  const out = gather(child.stdout), err = gather(child.stderr);
  try {
    await out.until(/listening on \d+/);
    const port = Number(/listening on (\d+)/.exec(out.text())![1]);
    await exhaust("127.0.0.1", port, LIMIT * 3, err, /down: .*too many open files/i);
    return { child, out, err, port };
  } catch (error) {
    await endChild(child, "SIGKILL", 5_000);
    throw error;
  }
}

/** Runs the child in `mode` into one episode; resolves its exit status and what it wrote. */
async function episode(mode: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const { child, out, err, port } = await startEpisode(mode);
  try {
    if (mode === "unref") await untilAnswers(`http://127.0.0.1:${port}/`, 200, err);
    // It must end on its own: SIGKILL comes only after 30 s, and says so in `killed`.
    const { status, killed } = await endChild(child, "SIGCONT", 30_000);
    assert.equal(killed, false, `${mode}: it did not end on its own; stdout: ${out.text()} stderr: ${err.text()}`);
    return { code: status.code, stdout: out.text(), stderr: err.text() };
  } finally {
    await endChild(child, "SIGKILL", 5_000);
  }
}

for (const mode of ["abort", "shutdown"]) {
  Deno.test(`keepServing: ${mode} during an episode ends it, finished settles once and resolves, the process ends`, async () => {
    const { code, stdout, stderr } = await episode(mode);
    assert.equal(code, 0, stderr);
    assert.equal(stdout.match(/finished/g)?.length, 1, stdout);
    assert.doesNotMatch(stdout, /rejected/, stdout);
    if (mode === "shutdown") assert.match(stdout, /shut down/, stdout);
    assert.doesNotMatch(stderr, /Uncaught|^\s+at /m, stderr);
    assert.equal(stderr.match(/down:/g)?.length, 1, `said once: ${stderr}`);
  });
}

Deno.test("keepServing: unref() during an episode holds for the server it listens on again: the process ends", async () => {
  const { code, stdout, stderr } = await episode("unref");
  assert.equal(code, 0, stderr);
  assert.doesNotMatch(stdout, /rejected/, stdout);
  assert.match(stderr, /up: takes new connections again/, stderr);
  assert.doesNotMatch(stderr, /Uncaught|^\s+at /m, stderr);
});

Deno.test("keepServing: an address taken by another listener during an episode is said, not retried in silence", async () => {
  const { child, err } = await startEpisode("taken");
  try {
    // Descriptors are back, but the address is another's: "refused until some close" is no longer true.
    await err.until(/down: cannot listen again on http:\/\/127\.0\.0\.1:\d+: the address is in use/);
    assert.doesNotMatch(err.text(), /Uncaught|^\s+at /m, err.text());
  } finally {
    await endChild(child, "SIGKILL", 5_000);
  }
});
