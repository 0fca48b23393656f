// `deno task kvconnect`'s flags, as a user types them: a port that is not a plain decimal is a usage error, not a
// free port picked in its place (Number("") is 0, as are Number(" ") and Number("0x0")).
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../../kvconnect/main.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));

/** Runs the task with `args`; a server that started (it prints its url) is stopped. Resolves its exit and stderr. */
async function task(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", CONFIG, MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const stderr = new Response(child.stderr).text();
  let stdout = "";
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    stdout += chunk;
    if (/^use: /m.test(stdout)) child.kill("SIGTERM"); // started: its SIGTERM handler closes it and exits 0
  }
  return { code: (await child.status).code, stdout, stderr: await stderr };
}

Deno.test("deno task kvconnect --port: a value that is not a plain decimal is a usage error naming it", async () => {
  for (const value of ["", " ", "0x0", "+0"]) {
    const { code, stdout, stderr } = await task([`--port=${value}`]);
    assert.equal(code, 2, `--port=${JSON.stringify(value)}: exit ${code}, ${stdout.split("\n")[1] ?? stderr}`);
    assert.match(
      stderr,
      new RegExp(
        `'--port' must be an integer from 0 to 65535, got ${
          RegExp.escape(value)
        }\\nUsage: deno task kvconnect .*--port N`,
      ),
    );
  }
});
