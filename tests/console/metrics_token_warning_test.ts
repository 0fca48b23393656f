/**
 * A short METRICS_TOKEN is the only thing between a guesser and the
 * metrics (each try is one constant-time compare, not limited): the console
 * starts with it, and says on stderr, without the token, that it is short.
 */

import assert from "node:assert/strict";
import { consoleCommand } from "./_main_process.ts";

/** Starts the console with `token`, waits for its start line, stops it, and gives what it said on stderr. */
async function stderrOfStart(token: string): Promise<string> {
  const child = consoleCommand({ PORT: "0", KV_PATH: ":memory:", METRICS_TOKEN: token }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/listening on /.test(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the console exited: ${text}${await stderr}`);
    text += value;
  }
  child.kill("SIGTERM");
  await reader.cancel();
  await child.status;
  return await stderr;
}

Deno.test("the console warns of a METRICS_TOKEN under 32 characters, without showing it, and still starts", async () => {
  const said = await stderrOfStart("shortsecret-123");
  assert.match(said, /Warning: METRICS_TOKEN has 15 characters/);
  assert.match(said, /32/);
  assert.ok(!said.includes("shortsecret-123"), "the token is not shown");
});

Deno.test("the console says nothing of a METRICS_TOKEN of 32 characters or more", async () => {
  const said = await stderrOfStart("a".repeat(16) + "b".repeat(16));
  assert.doesNotMatch(said, /METRICS_TOKEN/);
});
