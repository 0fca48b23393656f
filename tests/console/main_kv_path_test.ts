// The console command with a KV_PATH it cannot open (a folder, a file that is no database, a path under a file):
// it ended with an uncaught error and a stack trace that named no variable, so an operator could not tell which
// setting was wrong. It must refuse in one line naming KV_PATH, status 1, and leave the file there as it was.

import assert from "node:assert/strict";
import { consoleCommand } from "./_main_process.ts";

/** Runs the console with `kvPath`; its status and stderr, once it exits (killed after 30 s: it must not serve). */
async function refusal(kvPath: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = consoleCommand({ PORT: "0", HOST: "127.0.0.1", KV_PATH: kvPath, NO_COLOR: "1" }).spawn();
  const stdout = new Response(child.stdout).text();
  const stderr = new Response(child.stderr).text();
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const { code } = await child.status;
  clearTimeout(timer);
  return { code, stdout: await stdout, stderr: await stderr };
}

Deno.test("the console command refuses a KV_PATH it cannot open in one line naming KV_PATH, no stack trace", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const junk = `${dir}/junk.kv`;
    const bytes = new TextEncoder().encode("not a database, kept by hand\n");
    await Deno.writeFile(junk, bytes);
    for (const kvPath of [dir, junk, `${junk}/under/console.kv`]) {
      const { code, stdout, stderr } = await refusal(kvPath);
      assert.doesNotMatch(stdout, /listening on/, `${kvPath} started the console`);
      assert.equal(code, 1, `${kvPath}: ${stderr}`);
      assert.match(stderr, /^Cannot start the console: [^\n]*KV_PATH[^\n]*\n$/, kvPath);
      assert.ok(stderr.includes(kvPath), `${kvPath} is not named: ${stderr}`);
      assert.doesNotMatch(stderr, /Uncaught|^ {4}at /m);
    }
    assert.deepEqual(await Deno.readFile(junk), bytes, "the file that is no database was changed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
