// The console started as a process with its stylesheet folder, console/static/css/, empty or missing (deleted, or
// mis-copied) does not start: it exits 1 with one line on stderr naming the folder, rather than serving an empty
// stylesheet and an unstyled console with no word. Run on a copy of the project's source in a temporary folder
// (its node_modules linked), the folder emptied or removed there; the project's own is not touched.

import assert from "node:assert/strict";
import { endChild } from "../_child.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
/** What `console/main.ts` imports, from the project's root. */
const SOURCE = ["console", "webhooks", "sandbox", "build", "browser", "mod.ts", "deno.json", "deno.lock"];

/** Runs the console from a copy of the project whose console/static/css/ `change` emptied or removed. */
async function startWith(change: (css: string) => Promise<void>): Promise<{ code: number; err: string; out: string }> {
  const dir = await Deno.makeTempDir({ prefix: "console_css_" });
  try {
    const copied = await new Deno.Command("cp", { args: ["-r", ...SOURCE.map((s) => ROOT + s), dir] }).output();
    assert.equal(copied.code, 0, new TextDecoder().decode(copied.stderr));
    await Deno.symlink(`${ROOT}node_modules`, `${dir}/node_modules`);
    await change(`${dir}/console/static/css`);
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--config", `${dir}/deno.json`, "console/main.ts"],
      cwd: dir,
      env: { PORT: "0", KV_PATH: ":memory:", HOST: "127.0.0.1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const err = new Response(child.stderr).text();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let out = "";
    while (!out.includes("listening on")) {
      const { done, value } = await reader.read();
      if (done) break;
      out += value;
    }
    // A console that started (the defect) serves on: it is ended, and what it said is the answer.
    if (out.includes("listening on")) {
      await reader.cancel();
      await endChild(child, "SIGTERM");
      return { code: 0, err: await err, out };
    }
    return { code: (await child.status).code, err: await err, out };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function assertRefused(ran: { code: number; err: string; out: string }, what: RegExp): void {
  assert.equal(ran.code, 1, `exit ${ran.code}; stdout: ${ran.out}; stderr: ${ran.err}`);
  assert.doesNotMatch(ran.out, /listening on/);
  assert.match(ran.err, /^Cannot start the console: /);
  assert.match(ran.err, /console\/static\/css\//, "the folder named");
  assert.match(ran.err, what);
  assert.doesNotMatch(ran.err, /\n\s+at /, "no stack");
}

Deno.test("the console with an empty console/static/css/ exits 1, naming the folder, instead of serving no styles", async () => {
  const ran = await startWith(async (css) => {
    for await (const entry of Deno.readDir(css)) await Deno.remove(`${css}/${entry.name}`);
  });
  assertRefused(ran, /holds no \.css file/);
});

Deno.test("the console with console/static/css/ missing exits 1, naming the folder as missing", async () => {
  const ran = await startWith((css) => Deno.remove(css, { recursive: true }));
  assertRefused(ran, /is missing/);
});
