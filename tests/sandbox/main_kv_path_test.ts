// `deno task sandbox` with a SANDBOX_KV_PATH it cannot open (in a folder that does not exist, a file that is no
// database): it ended with an uncaught error and a stack trace naming no variable. It must refuse in one line naming
// SANDBOX_KV_PATH, status 1, and leave the file there as it was.

import assert from "node:assert/strict";
import { sandboxCommand } from "./_main_child.ts";

Deno.test("the sandbox command refuses a SANDBOX_KV_PATH it cannot open in one line naming it, no stack trace", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const junk = `${dir}/junk.kv`;
    const bytes = new TextEncoder().encode("not a database, kept by hand\n");
    await Deno.writeFile(junk, bytes);
    for (const kvPath of [`${dir}/no/such/folder/sandbox.kv`, junk]) {
      const child = sandboxCommand({ PORT: "0", HOST: "127.0.0.1", SANDBOX_KV_PATH: kvPath }).spawn();
      const stdout = new Response(child.stdout).text();
      const stderrText = new Response(child.stderr).text();
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      const { code } = await child.status;
      clearTimeout(timer);
      const stderr = await stderrText;
      assert.doesNotMatch(await stdout, /Sandbox community on/, `${kvPath} started the sandbox`);
      assert.equal(code, 1, `${kvPath}: ${stderr}`);
      assert.match(stderr, /^Cannot start the sandbox: [^\n]*SANDBOX_KV_PATH[^\n]*\n$/, kvPath);
      assert.ok(stderr.includes(kvPath), `${kvPath} is not named: ${stderr}`);
      assert.doesNotMatch(stderr, /Uncaught|^ {4}at /m);
    }
    assert.deepEqual(await Deno.readFile(junk), bytes, "the file that is no database was changed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
