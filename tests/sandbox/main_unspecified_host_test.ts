// `deno task sandbox` with HOST=0.0.0.0 (or `::`), to be reached from other machines: it printed and stored its base
// URL as `http://0.0.0.0:P/sandbox`, a listening address, not one to browse or post to (a client told to post there
// reaches nothing on most systems, and a community stored with it points every OAuth and webhook call at it). The
// console shows `localhost` for such an address; the sandbox must too, in what it prints and in the community it stores.

import assert from "node:assert/strict";
import { endChild } from "../_child.ts";
import { sandboxCommand, startedText } from "./_main_child.ts";

/** Whether this machine can listen on `hostname`. */
function canListen(hostname: string): boolean {
  try {
    Deno.listen({ hostname, port: 0 }).close();
    return true;
  } catch {
    return false;
  }
}

for (const host of ["0.0.0.0", "::", "[::]"]) {
  Deno.test({
    name: `the sandbox command on HOST=${host} prints and stores a base URL on localhost, not on ${host}`,
    ignore: !canListen(host.replace(/^\[(.*)\]$/, "$1")),
    async fn() {
      const dir = await Deno.makeTempDir({ prefix: "sandbox_host_" });
      const child = sandboxCommand({ PORT: "0", HOST: host, SANDBOX_KV_PATH: `${dir}/sandbox.kv` }).spawn();
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      const stderr = new Response(child.stderr).text();
      try {
        const text = await startedText(reader);
        assert.match(text, /^Sandbox community on http:\/\/localhost:\d+\/sandbox /, text);
        const baseUrl = /base URL (\S+),/.exec(text)?.[1] ?? "";
        assert.match(baseUrl, /^http:\/\/localhost:\d+\/sandbox$/, text);
        const res = await fetch(`${new URL(baseUrl).origin}/`, { redirect: "manual" });
        await res.body?.cancel();
        assert.equal(res.status, 302, "it answers on the address it names");
      } finally {
        await reader.cancel();
        await endChild(child, "SIGINT");
        await stderr;
      }
      // What it stored: no value of its KV names the unspecified address.
      const kv = await Deno.openKv(`${dir}/sandbox.kv`);
      try {
        for await (const { value } of kv.list({ prefix: [] })) {
          assert.doesNotMatch(JSON.stringify(value) ?? "", /0\.0\.0\.0|\[::\]/, JSON.stringify(value));
        }
      } finally {
        kv.close();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
