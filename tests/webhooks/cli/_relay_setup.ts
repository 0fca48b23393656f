// The set-up of the `relay` commands' tests: a KV (a temporary file, or the
// one given) with hooks h1 and h2, a destination of every hook at a real app
// on 127.0.0.1 that answers 500, and `count` postbacks that died there under a
// one-step schedule (dead letters); the CLI run in process through `main`.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createRelay, type DeadLetter, type NewDestination, type Relay } from "../../../webhooks/mod.ts";
import { main } from "../../../webhooks/cli/mod.ts";
import { type App, postback, seedHooks, startApp, until, writeAll } from "../relay/fixtures.ts";

/** What one in-process run of the CLI gave. */
export interface Ran {
  code: number;
  out: string;
  err: string;
}

/** What a test of the `relay` commands gets. */
export interface RelaySetup {
  /** The `--kv` value. */
  path: string;
  kv: Deno.Kv;
  relay: Relay;
  app: App;
  /** The app's answer's status: 500 until a test sets it. */
  status: { value: number };
  destination: NewDestination;
  /** The dead letters, oldest first. */
  dead: DeadLetter[];
  /** Runs the CLI with `argv` and `--kv` the set-up's. */
  run(argv: string[], env?: Record<string, string>): Promise<Ran>;
}

/** Runs the CLI in process with `argv`; resolves with its status and output. */
export async function runMain(argv: string[], env: Record<string, string> = {}): Promise<Ran> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    env: (name) => env[name] ?? Deno.env.get(name),
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/** Fails when `ran` printed the destination's secret (or any `whsec_` secret). */
export function noSecret(ran: Ran, secret: string): void {
  for (const text of [ran.out, ran.err]) {
    assert.ok(!text.includes(secret) && !text.includes("whsec_"), `a secret printed: ${text}`);
  }
}

/** The set-up, on a fresh KV file unless `open` gives the KV and its `--kv` value. */
export async function withDeadLetters(
  count: number,
  fn: (setup: RelaySetup) => Promise<void>,
  open?: () => Promise<{ path: string; kv: Deno.Kv; close(): Promise<void> }>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cli_relay_" });
  const opened = open ? await open() : null;
  const path = opened?.path ?? `${dir}/webhooks.kv`;
  const kv = opened?.kv ?? await Deno.openKv(path);
  const status = { value: 500 };
  const app = startApp(() => new Response(`app says ${status.value}`, { status: status.value }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, schedule: [1] });
  try {
    await seedHooks(kv);
    const destination = await relay.destinations.add({ url: `${app.url}?team=blue` });
    await writeAll(kv, relay.write, Array.from({ length: count }, (_, i) => postback("h1", 0, `p${i}`)));
    const worker = relay.run();
    let dead: DeadLetter[] = [];
    await until(async () => (dead = (await relay.deadLetters({ limit: 1000 })).values).length === count, 20_000);
    await worker.stop();
    const run = (argv: string[], env?: Record<string, string>) => runMain([...argv, "--kv", path], env);
    await fn({ path, kv, relay, app, status, destination, dead, run });
  } finally {
    await relay.close();
    await app.close();
    kv.close();
    await opened?.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Every key of the KV and its versionstamp: what a run that writes nothing leaves as it was. */
export async function snapshot(kv: Deno.Kv): Promise<string[]> {
  const all: string[] = [];
  for await (const e of kv.list({ prefix: [] })) {
    all.push(`${JSON.stringify(e.key, (_, v) => String(v))}@${e.versionstamp}`);
  }
  return all;
}

const ULID = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** An id one step off `id` (its first 4 characters mostly kept, an entry id's `msg_`): a character changed (maybe to one outside the ULID alphabet), dropped or added. */
export const nearId = (id: string) =>
  fc.tuple(
    fc.nat(id.length - 1),
    fc.constantFrom(...ULID, "I", "L", "O", "U", "a", "\n", "\u001b", "\ud800"),
    fc.nat(2),
  )
    .map(([at, c, how]) => {
      const i = Math.max(at, 4); // keep `msg_` mostly: the rest is what is near
      return how === 0 ? id.slice(0, i) + c + id.slice(i + 1) : how === 1 ? id.slice(0, i) + id.slice(i + 1) : id + c;
    })
    .filter((near) => near !== id);

/**
 * Asserts a run of `argv` ended as API.md allows: status 0, 1 or 2, a failure said as `Error: ...`, and no stack.
 * Resolves with how the run is named in messages (`argv`, cut).
 */
export function endedCleanly(argv: string[], ran: Ran): string {
  const what = JSON.stringify(argv).slice(0, 300);
  assert.ok([0, 1, 2].includes(ran.code), `${what} ended ${ran.code}`);
  if (ran.code !== 0) assert.match(ran.err, /^Error: \S/, what);
  assert.ok(!/Uncaught|\n\s+at /.test(ran.err + ran.out), `${what} printed a stack: ${ran.err}`);
  return what;
}
