// `deno task sandbox` (sandbox/main.ts) reads PORT and HOST as its table says, "a whole number from 0 to 65535": it
// read PORT with Number(), so `0x10` listened on port 16 and `8e3` on 8000, and an empty PORT on a free port rather
// than 8090; a port in use or a bad HOST ended it with an uncaught error and a stack trace, naming no variable.

import assert from "node:assert/strict";
import { endChild } from "../_child.ts";
import { sandboxCommand, startedText } from "./_main_child.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** Runs the sandbox with `env`; resolves with its status and output when it exits, fails the test when it serves. */
async function refusal(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const child = sandboxCommand(env).spawn();
  const stdout = new Response(child.stdout).text();
  const stderr = new Response(child.stderr).text();
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const { code } = await child.status;
  clearTimeout(timer);
  const out = await stdout;
  assert.doesNotMatch(out, /Sandbox community on/, `${JSON.stringify(env)} started the sandbox: ${out}`);
  return { code, stderr: await stderr };
}

Deno.test("the sandbox command refuses a PORT that is not a plain decimal rather than reading it as another port", async () => {
  for (const value of ["0x10", "8e3", "0b0", "1.5e3", "eighty", "70000"]) {
    const { code, stderr } = await refusal({ PORT: value, HOST: "127.0.0.1" });
    assert.equal(code, 2, value);
    assert.equal(stderr, `PORT must be a whole number from 0 to 65535, got '${value}'\n`);
  }
});

Deno.test("the sandbox command on a port in use says so in one line naming PORT, status 1, no stack trace", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const { code, stderr } = await refusal({ PORT: String(taken.addr.port), HOST: "127.0.0.1" });
    assert.equal(code, 1);
    assert.match(stderr, /^Cannot start the sandbox: 127\.0\.0\.1:\d+ is in use [^\n]*PORT[^\n]*\n$/);
  } finally {
    taken.close();
  }
});

Deno.test("the sandbox command refuses a HOST it cannot listen on in one line naming HOST, no stack trace", async () => {
  const { code, stderr } = await refusal({ PORT: "0", HOST: "not a host" });
  assert.equal(code, 1);
  assert.match(stderr, /^Cannot start the sandbox: cannot listen on [^\n]*HOST[^\n]*\n$/);
  assert.doesNotMatch(stderr, /Uncaught|^ {4}at /m);
});

Deno.test("the sandbox command takes an empty PORT or HOST as unset: 8090 on 127.0.0.1", async () => {
  let free = true;
  try {
    Deno.listen({ hostname: "127.0.0.1", port: 8090 }).close();
  } catch {
    free = false; // 8090 taken here: the default cannot be shown listening
  }
  if (!free) return;
  const child = sandboxCommand({ PORT: " ", HOST: "" }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let text = "";
    while (!/\n/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    assert.match(text, /^Sandbox community on http:\/\/127\.0\.0\.1:8090\/sandbox /);
  } finally {
    await reader.cancel();
    await child.stderr.cancel();
    await endChild(child, "SIGINT");
  }
});

/** Whether this machine can listen on IPv6's loopback. */
function hasIpv6Loopback(): boolean {
  try {
    Deno.listen({ hostname: "::1", port: 0 }).close();
    return true;
  } catch {
    return false;
  }
}

Deno.test({
  name: "the sandbox command on an IPv6 HOST serves, its base URL writing the address in brackets",
  ignore: !hasIpv6Loopback(),
  async fn() {
    // HOST=::1 ended it at start: "'origin' must be an http(s) origin ..., got \"http://::1:38957\"", with a stack trace.
    for (const host of ["::1", "[::1]"]) {
      const child = sandboxCommand({ PORT: "0", HOST: host }).spawn();
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      const stderr = new Response(child.stderr).text();
      try {
        const text = await startedText(reader);
        assert.match(text, /^Sandbox community on http:\/\/\[::1\]:\d+\/sandbox /, `${host}: ${text}`);
        const baseUrl = /base URL (\S+),/.exec(text)![1];
        assert.match(baseUrl, /^http:\/\/\[::1\]:\d+\/sandbox$/);
        const res = await fetch(`${new URL(baseUrl).origin}/`, { redirect: "manual" });
        await res.body?.cancel();
        assert.equal(res.status, 302, "it answers on the address it names");
      } finally {
        await reader.cancel();
        await endChild(child, "SIGINT");
        await stderr;
      }
    }
  },
});

Deno.test("the sandbox command takes an empty SANDBOX_KV_PATH as unset: its state in memory", async () => {
  // "" ended it at start ("Uncaught (in promise) TypeError: Filename cannot be empty", a stack trace); " " made a KV
  // file named " " in the folder it ran in.
  for (const value of ["", " "]) {
    const child = sandboxCommand({ PORT: "0", HOST: "127.0.0.1", SANDBOX_KV_PATH: value }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const stderr = new Response(child.stderr).text();
    let text = "";
    try {
      while (!/\n/.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
    } finally {
      await reader.cancel();
      await endChild(child, "SIGINT");
    }
    assert.match(text, /^Sandbox community on http:\/\/127\.0\.0\.1:\d+\/sandbox /, await stderr);
    const made = await Deno.lstat(`${ROOT}${value}`).then((info) => info.isFile, () => false);
    if (made) await Deno.remove(`${ROOT}${value}`);
    assert.ok(!made, `SANDBOX_KV_PATH='${value}' made a KV file of that name`);
  }
});
