// A worker in its own process over KV Connect (20 ms away) whose KV server is
// killed (SIGKILL) and started again on the same file and port twice: while
// the worker holds taken entries, and while the finishes of its deliveries
// commit. Without a restart of the worker, every entry is delivered at least
// once, each item under one webhook-id, none left in the outbox or leased, no
// dead letter, forwards and attempts agree, and the worker does not spin.

import { TEST_TOKEN } from "../../kvconnect/token.ts";
import { spawnChild } from "../_child.ts";
import { startApp, until } from "./fixtures.ts";
import { allDelivered, assertIdle, assertSettled, fill } from "./_sleepy.ts";

const CHILD = new URL("./_clock_worker_child.ts", import.meta.url).pathname;
const ROOT = new URL("../../../", import.meta.url);
const N = 40;

/**
 * The KV Connect server (`kvconnect/main.ts`) in a child process on `path` and `port` (0: a free one it binds itself,
 * never one picked here and bound later, which a test module running beside this one could take meanwhile), each
 * answer 20 ms late; the child and its port.
 */
async function startServer(path: string, port: number): Promise<{ child: Deno.ChildProcess; port: number }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", new URL("deno.json", ROOT).pathname, "kvconnect/main.ts", "--path", path, "--port"]
      .concat([String(port), "--token", TEST_TOKEN, "--latency", "20"]),
    cwd: ROOT.pathname,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!/^url: .*:\d+\r?\n/m.test(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`The KV Connect server did not start: ${seen}`);
    seen += value;
  }
  (async () => {
    while (!(await reader.read()).done) { /* drained */ }
  })().catch(() => {});
  return { child, port: Number(/^url: .*:(\d+)\r?\n/m.exec(seen)![1]) };
}

async function kill(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGKILL");
  } catch {
    // Gone already.
  }
  await child.status;
}

Deno.test("a worker over KV Connect whose server is killed and restarted twice mid-run delivers all, no restart", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/remote.kv`;
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const { child: first, port } = await startServer(file, 0);
  let server = first;
  const url = `http://127.0.0.1:${port}`;
  const kv = await Deno.openKv(url);
  const app = startApp(() => new Promise((r) => setTimeout(() => r(new Response("ok")), 200)));
  let worker: ReturnType<typeof spawnChild> | null = null;
  try {
    await fill(kv, app, N);
    worker = spawnChild(CHILD, [url, "4", "3000", "2000"], { stdin: true });
    await worker.waitFor("ready");
    await app.waitFor(6, 30_000); // entries taken and in flight
    await kill(server);
    await new Promise((r) => setTimeout(r, 1_500));
    server = (await startServer(file, port)).child;
    await until(
      () => worker!.lines.filter((l: string) => l.startsWith("attempt ")).length >= 16,
      30_000,
      "attempts after",
    );
    await kill(server); // finishes committing
    await new Promise((r) => setTimeout(r, 1_500));
    server = (await startServer(file, port)).child;
    await until(() => allDelivered(kv, app, N), 40_000, "every item delivered after the restarts");
    await assertIdle(worker.pid, "the worker");
    await worker.send("stop");
    await worker.waitFor("stopped", 15_000);
    await assertSettled(kv, app, N);
  } finally {
    await worker?.kill();
    await app.close();
    kv.close();
    await kill(server);
    await Deno.remove(dir, { recursive: true });
  }
});
