// The console started as a process with its stylesheet folder, console/static/css/, empty or missing (deleted, or
// mis-copied) does not start: it exits 1 with one line on stderr naming the folder, rather than serving an empty
// stylesheet and an unstyled console with no word. Run on a copy of the project's source in a temporary folder
// (its node_modules linked), the folder emptied or removed there; the project's own is not touched.

import assert from "node:assert/strict";
import { endChild } from "../_child.ts";
import { untilStartLine } from "./_main_process.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
/** What `console/main.ts` imports, from the project's root. */
const SOURCE = ["console", "webhooks", "sandbox", "build", "browser", "mod.ts", "deno.json", "deno.lock"];

/**
 * Runs the console from a copy of the project whose console/static/css/ `change` emptied, removed or replaced;
 * `style` is then the stylesheet it served, when it started.
 */
async function startWith(
  change: (css: string) => Promise<void>,
  prefix = "console_css_",
): Promise<{ code: number; err: string; out: string; style?: string; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix });
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
    const out = await untilStartLine(reader);
    // A console that started (the defect) serves on: it is ended, and what it said is the answer.
    if (out.includes("listening on")) {
      const answer = await fetch(`${/listening on (\S+)/.exec(out)![1]}/static/style.css`);
      const style = await answer.text();
      await reader.cancel();
      await endChild(child, "SIGTERM");
      return { code: 0, err: await err, out, style, dir };
    }
    return { code: (await child.status).code, err: await err, out, dir };
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

Deno.test("the console with console/static/css/ a folder of links to the .css files serves them, joined", async () => {
  // Some deployments build the folder as links into a shared store: a link to a file is that file.
  const store = await Deno.makeTempDir({ prefix: "console_css_store_" });
  try {
    const ran = await startWith(async (css) => {
      for await (const entry of Deno.readDir(css)) {
        await Deno.rename(`${css}/${entry.name}`, `${store}/${entry.name}`);
        await Deno.symlink(`${store}/${entry.name}`, `${css}/${entry.name}`);
      }
    });
    assert.equal(ran.code, 0, `exit ${ran.code}; stderr: ${ran.err}`);
    const expected = [...Deno.readDirSync(`${ROOT}console/static/css`)].map((e) => e.name).sort()
      .map((name) => Deno.readTextFileSync(`${ROOT}console/static/css/${name}`)).join("");
    assert.equal(ran.style, expected);
  } finally {
    await Deno.remove(store, { recursive: true });
  }
});

Deno.test("the console whose console/static/css/ is a file exits 1, naming the path as not a folder", async () => {
  const ran = await startWith(async (css) => {
    await Deno.remove(css, { recursive: true });
    await Deno.writeTextFile(css, "body {}\n");
  });
  assertRefused(ran, /is not a folder: [^\n]*restore console\/static\/css\//);
});

Deno.test("the console with a broken link in console/static/css/ exits 1, naming the link", async () => {
  const ran = await startWith((css) => Deno.symlink(`${css}/gone.css`, `${css}/0_gone.css`));
  assertRefused(ran, /0_gone\.css is a link to nothing/);
});

Deno.test("the console serves .css files named with a space, '#', '?' or '%' as they are, in their names' order", async () => {
  // A name is a name, not a URL: "3_parts #1.css" was read as ".../3_parts " (no such file, no start),
  // "4_narrow%41.css" as its neighbour ".../4_narrowA.css" (another file's bytes, served twice) and "5_access?.css"
  // as ".../5_access".
  const ran = await startWith(async (css) => {
    await Deno.rename(`${css}/3_parts.css`, `${css}/3_parts #1.css`);
    await Deno.rename(`${css}/4_narrow.css`, `${css}/4_narrow%41.css`);
    await Deno.writeTextFile(`${css}/4_narrowA.css`, "/* its neighbour, served after it */\n");
    await Deno.rename(`${css}/5_access.css`, `${css}/5_access?.css`);
  });
  assert.equal(ran.code, 0, `exit ${ran.code}; stderr: ${ran.err}`);
  const own = (name: string) => Deno.readTextFileSync(`${ROOT}console/static/css/${name}`);
  const names = [...Deno.readDirSync(`${ROOT}console/static/css`)].map((e) => e.name).sort();
  const expected = names.map(own).join("").replace(
    own("4_narrow.css"),
    own("4_narrow.css") + "/* its neighbour, served after it */\n",
  );
  assert.equal(ran.style, expected);
});

Deno.test("the console skips hidden entries of console/static/css/: an editor's lock link, a copy's metadata file", async () => {
  // Emacs keeps a dangling link ".#name.css" beside a file being edited, and macOS copies leave "._name.css" files
  // of metadata: neither is a stylesheet, and neither may stop the start or be served as styles.
  const ran = await startWith(async (css) => {
    await Deno.symlink("root@host.1234:1700000000", `${css}/.#1_page.css`);
    await Deno.writeFile(`${css}/._2_x.css`, new Uint8Array([0, 5, 22, 7, 0, 2, 0, 0]));
  });
  assert.equal(ran.code, 0, `exit ${ran.code}; stderr: ${ran.err}`);
  const names = [...Deno.readDirSync(`${ROOT}console/static/css`)].map((e) => e.name).sort();
  assert.equal(ran.style, names.map((name) => Deno.readTextFileSync(`${ROOT}console/static/css/${name}`)).join(""));
});

Deno.test("the console names its stylesheet folder as a path, a space as a space (not %20), and a link loop with the hint", async () => {
  const empty = await startWith(async (css) => {
    for await (const entry of Deno.readDir(css)) await Deno.remove(`${css}/${entry.name}`);
  }, "console css ");
  assertRefused(empty, /holds no \.css file/);
  assert.ok(empty.err.includes(`${empty.dir}/console/static/css/`), `the path as it is: ${empty.err}`);
  const loop = await startWith((css) => Deno.symlink(`${css}/0_loop.css`, `${css}/0_loop.css`));
  assertRefused(loop, /0_loop\.css[^\n]*restore console\/static\/css\//);
});
