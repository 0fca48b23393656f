// `listen --forward-to URL`: end to end, a signed postback accepted by a
// receiver whose write is relay.write reaches a test app on localhost through
// the listener's pinned destination; one line per attempt; the destination
// is removed on Ctrl-C. On a local KV file, over KV Connect, and as a
// process that gets SIGINT.

import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { createReceiver, createRelay, createWebhooks } from "../../../webhooks/mod.ts";
import { main } from "../../../webhooks/cli/mod.ts";
import { startKvConnectServer } from "../../../kvconnect/mod.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";
import { NOW, REF_A, seed, signA } from "../_receiver.ts";
import { startApp, until } from "../relay/fixtures.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;

/** Serves a receiver that stores through relay.write on `kv`; resolves with its URL and a stopper. */
function serveReceiver(kv: Deno.Kv): { url: string; stop: () => Promise<void> } {
  const relay = createRelay(kv);
  const receiver = createReceiver(createWebhooks(kv), { write: relay.write, now: () => NOW });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, receiver.handle);
  return {
    url: `http://127.0.0.1:${server.addr.port}/hooks`,
    stop: async () => {
      await server.shutdown();
      await relay.close();
    },
  };
}

async function postTo(url: string, verb: string): Promise<Response> {
  return await fetch(url, {
    method: "POST",
    headers: { authorization: await signA(), "content-type": "application/json" },
    body: JSON.stringify([{ webhook: REF_A, activity: { verb } }]),
  });
}

/** A well-formed secret for WEBHOOK_SECRET. */
const SECRET = "whsec_" + btoa("0123456789abcdef0123456789abcdef");

/**
 * Runs listen against `kv` until a postback reaches the app, then Ctrl-C.
 * `secretFrom`: "print" (`--print-secret`, no WEBHOOK_SECRET), "env"
 * (WEBHOOK_SECRET set, nothing printed), "both" (WEBHOOK_SECRET set and
 * `--print-secret`: the operator's own secret is still not printed) or "none"
 * (a generated secret, not printed).
 */
async function listenEndToEnd(
  kv: Deno.Kv,
  kvArg: string,
  secretFrom: "print" | "env" | "both" | "none",
): Promise<void> {
  await seed(createWebhooks(kv));
  const app = startApp();
  const receiver = serveReceiver(kv);
  const stop = new AbortController();
  const out: string[] = [];
  const err: string[] = [];
  const given = secretFrom === "env" || secretFrom === "both";
  const env = (name: string) => given && name === "WEBHOOK_SECRET" ? SECRET : undefined;
  const io = { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), env };
  const printFlag = secretFrom === "print" || secretFrom === "both" ? ["--print-secret"] : [];
  try {
    const running = main(["listen", "--forward-to", app.url, "--hook", "hook-a", "--kv", kvArg, ...printFlag], {
      ...io,
      signal: stop.signal,
    });
    const relay = createRelay(kv);
    await until(async () => (await relay.destinations.list()).length === 1, 10_000, "the listener's destination");
    const [destination] = await relay.destinations.list();
    assert.equal(destination.pinned, true);
    assert.deepEqual(destination.hookIds, ["hook-a"]);
    const answer = await postTo(receiver.url, "jive:created");
    assert.equal(answer.status, 200, await answer.text());
    await app.waitFor(1);
    await until(() => out.length === 1, 5_000, "the attempt's line");
    assert.match(out[0], /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}hook-a {2}200 +\d+ ms {2}msg_\w+$/);
    const printed = /Signing secret: (whsec_\S+)/.exec(err.join("\n"))?.[1];
    const hint = /set WEBHOOK_SECRET=whsec_\.\.\. here and in your app, or run with --print-secret/;
    if (secretFrom === "print") assert.ok(printed, "--print-secret prints the secret on stderr");
    else assert.doesNotMatch(err.join("\n") + out.join("\n"), /whsec_[A-Za-z0-9+/]/); // never printed unasked
    // Asked, the one given is named as used, not shown: it is the operator's own, and a script's log keeps stderr.
    if (secretFrom === "both") {
      assert.match(err.join("\n"), /Signing secret: the one given \(WEBHOOK_SECRET or --secret\), not shown/);
    }
    if (secretFrom === "none") assert.match(err.join("\n"), hint);
    else assert.doesNotMatch(err.join("\n"), hint);
    // The secret in use (printed, or WEBHOOK_SECRET) verifies what the app got.
    const got = app.received[0];
    const headers = {
      "webhook-id": got.id,
      "webhook-timestamp": got.timestamp,
      "webhook-signature": got.signature,
    };
    if (secretFrom !== "none") {
      const body = new Webhook(printed ?? SECRET).verify(got.body, headers) as { type: string };
      assert.equal(body.type, "jive:created");
    } else {
      assert.throws(() => new Webhook(SECRET).verify(got.body, headers)); // a secret of its own
    }
    stop.abort(); // Ctrl-C
    assert.equal(await running, 0);
    assert.deepEqual(await relay.destinations.list(), []);
    assert.match(err.at(-1)!, /^Removed destination /);
    await relay.close();
  } finally {
    stop.abort();
    await receiver.stop();
    await app.close();
  }
}

Deno.test("listen forwards a received postback to a localhost app, prints the attempt and removes its destination on Ctrl-C (KV file)", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/webhooks.kv`);
  try {
    await listenEndToEnd(kv, `${dir}/webhooks.kv`, "print");
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("listen works with --kv naming a KV Connect URL", async () => {
  const server = await startKvConnectServer({ path: ":memory:", token: TEST_TOKEN });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const kv = await Deno.openKv(server.url);
  try {
    await listenEndToEnd(kv, server.url, "env");
  } finally {
    kv.close();
    await server.close();
  }
});

Deno.test("listen --print-secret with WEBHOOK_SECRET given prints that it is used, not the secret", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/webhooks.kv`);
  try {
    await listenEndToEnd(kv, `${dir}/webhooks.kv`, "both");
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("listen prints no secret unless --print-secret, and says to set WEBHOOK_SECRET to verify", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/webhooks.kv`);
  try {
    await listenEndToEnd(kv, `${dir}/webhooks.kv`, "none");
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("listen refuses a malformed WEBHOOK_SECRET with exit 2 and a message that does not show it", async () => {
  for (const bad of ["not-a-secret-at-all", "whsec_" + btoa("too short"), "whsec_!!!!" + btoa("x".repeat(30))]) {
    const err: string[] = [];
    const code = await main(["listen", "--forward-to", "http://localhost:3000/webhooks", "--kv", ":memory:"], {
      stdout: () => {},
      stderr: (t) => err.push(t),
      env: (name) => name === "WEBHOOK_SECRET" ? bad : undefined,
    });
    assert.equal(code, 2, bad);
    const text = err.join("\n");
    assert.match(text, /WEBHOOK_SECRET \(or --secret\) must be whsec_ followed by 24 to 64 bytes in base64/);
    assert.equal(text.includes(bad), false, "the value is not shown");
  }
});

Deno.test("listen as a process ends on SIGINT with its destination removed; a usage error exits 2", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/webhooks.kv`;
  const kv = await Deno.openKv(path);
  const app = startApp();
  try {
    await seed(createWebhooks(kv));
    const bad = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "webhooks/cli.ts", "listen", "--kv", path],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(bad.code, 2);
    assert.match(new TextDecoder().decode(bad.stderr), /'listen' needs --forward-to/);
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "webhooks/cli.ts", "listen", "--forward-to", app.url, "--kv", path],
      cwd: ROOT,
      env: { NO_COLOR: "1", WEBHOOK_SECRET: SECRET },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const relay = createRelay(kv);
    try {
      await until(async () => (await relay.destinations.list()).length === 1, 20_000, "the destination");
      child.kill("SIGINT");
      const { code, stderr } = await child.output();
      const text = new TextDecoder().decode(stderr);
      assert.equal(code, 0, text);
      assert.match(text, /Removed destination/);
      assert.doesNotMatch(text, /whsec_/); // a secret from WEBHOOK_SECRET is not printed
      assert.deepEqual(await relay.destinations.list(), []);
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // exited
      }
      await relay.close();
    }
  } finally {
    await app.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
