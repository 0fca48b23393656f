// A `listen` started in process through `main` on a fresh KV file, forwarding
// to an app on 127.0.0.1, with its destination found: for the tests that act
// on a running listen and watch how it ends.
import { createRelay, type Relay } from "../../../webhooks/mod.ts";
import { main } from "../../../webhooks/cli/mod.ts";
import { type App, seedHooks, startApp, until } from "../relay/fixtures.ts";

/** A running listen, its KV, relay handle, app, destination id and output. */
export interface StartedListen {
  kv: Deno.Kv;
  /** The KV file's path (for another command's `--kv`). */
  path: string;
  relay: Relay;
  app: App;
  /** The listen's pinned destination. */
  id: string;
  out: string[];
  err: string[];
  /** listen's exit status, once it ends. */
  running: Promise<number>;
  /** Stops listen (as Ctrl-C) if it runs, and closes and removes everything. */
  close(): Promise<void>;
}

/** Starts listen forwarding to an app answering with `answer` (200 by default) and waits for its destination. */
export async function startListen(answer?: App["answer"]): Promise<StartedListen> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/webhooks.kv`;
  const kv = await Deno.openKv(path);
  const app = startApp(answer);
  const stop = new AbortController();
  const out: string[] = [];
  const err: string[] = [];
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  const close = async () => {
    stop.abort();
    await relay.close();
    await app.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  };
  try {
    await seedHooks(kv);
    const running = main(["listen", "--forward-to", app.url, "--kv", path], {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      env: () => undefined,
      signal: stop.signal,
    });
    await until(async () => (await relay.destinations.list()).length === 1, 10_000, "the listener's destination");
    const [{ id }] = await relay.destinations.list();
    return { kv, path, relay, app, id, out, err, running, close };
  } catch (error) {
    await close();
    throw error;
  }
}
