// An assertion failing inside withHook while a request the test started was still under way (a body never ended)
// hung the test in its teardown rather than failing it: the console's server shutdown waits for every connection,
// and that request's connection never ends. The child `deno test` of the fixture must end within the bound, failing
// each of its two tests with its own assertion's message.

import assert from "node:assert/strict";
import { endChild } from "../_child.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const BOUND_MS = 45_000;

Deno.test("an assertion failing inside withHook fails its test with its own message, not a hang in teardown", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", "--config", `${ROOT}deno.json`, "tests/console/_with_hook_fails_child.ts"],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => timer = setTimeout(() => resolve("late"), BOUND_MS));
  const first = await Promise.race([child.status, late]);
  clearTimeout(timer);
  if (first === "late") await endChild(child, "SIGKILL");
  const text = (await output).join("\n");
  if (first === "late") assert.fail(`the child did not end within ${BOUND_MS} ms:\n${text}`);
  assert.equal(first.code, 1, text);
  for (const whose of ["withHook's client", "a client of its own"]) {
    assert.match(text, new RegExp(`AssertionError: the fixture's own assertion \\(${whose}\\)`), text);
  }
  assert.match(text, /0 passed \| 2 failed/, text);
});
