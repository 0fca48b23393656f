/**
 * The console command: `deno run -A console/main.ts` (what `deno task
 * console` runs) listens, opens a KV file in a folder it creates, and
 * answers /healthz.
 */

import assert from "node:assert/strict";
import { Client, registerHook, signIn, trigger } from "./_helpers.ts";
import { consoleCommand, type ConsoleProcess, startConsoleProcess } from "./_main_process.ts";

Deno.test("the console command serves on the given port with a KV file in a new folder", async () => {
  const dir = await Deno.makeTempDir({ prefix: "console_main_" });
  const kvPath = `${dir}/data/console.kv`;
  const main = await startConsoleProcess({ KV_PATH: kvPath, HOST: "127.0.0.1" });
  try {
    assert.match(main.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${main.origin}/healthz`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
    const home = await fetch(`${main.origin}/`, { redirect: "manual" });
    await home.body?.cancel();
    assert.equal(home.status, 302);
    const islands = await fetch(`${main.origin}/static/_build/islands.js`);
    assert.equal(islands.status, 200);
    await islands.body?.cancel();
    assert.ok((await Deno.stat(kvPath)).isFile);
  } finally {
    await main.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the console command refuses a bad PORT, DELIVERIES_RETAIN or METRICS_TOKEN with a clear message", async () => {
  const refusals: [Record<string, string>, RegExp][] = [
    [{ PORT: "eighty" }, /PORT must be an integer from 0 to 65535, got 'eighty'/],
    [{ DELIVERIES_RETAIN: "10000001" }, /DELIVERIES_RETAIN must be an integer from 1 to 10000000, got '10000001'/],
    [{ DELIVERIES_RETAIN: "0" }, /DELIVERIES_RETAIN must be an integer from 1 to 10000000, got '0'/],
    [{ METRICS_TOKEN: "two wordsecret" }, /^METRICS_TOKEN must not contain spaces or other whitespace[^]*$/],
  ];
  for (const [env, message] of refusals) {
    const out = await consoleCommand({ KV_PATH: ":memory:", ...env }).output();
    assert.equal(out.code, 1, JSON.stringify(env));
    const stderr = new TextDecoder().decode(out.stderr);
    assert.match(stderr, message);
    assert.ok(!stderr.includes("wordsecret"), "the token is not echoed");
  }
});

Deno.test("two console processes on one KV file share sessions, and one sees the deliveries the other receives", async () => {
  const dir = await Deno.makeTempDir({ prefix: "console_two_" });
  const kvPath = `${dir}/console.kv`;
  const a = await startConsoleProcess({ KV_PATH: kvPath, DELIVERIES_RETAIN: "10000000" }); // the largest retention
  let b: ConsoleProcess | undefined;
  const abort = new AbortController();
  try {
    // Behind one proxy both processes have the same public URL.
    b = await startConsoleProcess({ KV_PATH: kvPath, PUBLIC_URL: a.origin });
    const client = await signIn(a.origin);
    const id = await registerHook(client, a.origin);
    const atB = new Client(b.origin);
    atB.cookies = new Map(client.cookies);
    const events = await atB.fetch(`/deliveries/events?hook=${id}`, { signal: abort.signal });
    assert.equal(events.status, 200);
    const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("event: ready")) text += (await reader.read()).value ?? "";
    const hook = await (await atB.fetch(`/webhooks/${id}`)).text();
    assert.match(hook, new RegExp(`Webhook ${id}`));
    const platformId = /\/api\/core\/v3\/webhooks\/(\d+)</.exec(hook)![1];
    assert.deepEqual(await trigger(a.origin, { webhookId: platformId }), [200]);
    const deadline = Date.now() + 15_000;
    while (!text.includes("event: delivery")) {
      assert.ok(Date.now() < deadline, `no delivery event at the other process: ${text}`);
      text += (await reader.read()).value ?? "";
    }
    abort.abort();
    await reader.cancel().catch(() => {});
  } finally {
    abort.abort();
    await b?.stop();
    await a.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the console command on a port in use says so in one line, exit status 1, no stack trace", async () => {
  const holder = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (holder.addr as Deno.NetAddr).port;
  try {
    const out = await consoleCommand({ KV_PATH: ":memory:", PORT: String(port), NO_COLOR: "1" }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 1, stderr);
    assert.equal(
      stderr,
      `Cannot start the console: 127.0.0.1:${port} is in use (another process listens there): set PORT to another port\n`,
    );
  } finally {
    holder.close();
  }
});

Deno.test("the console command takes HOST=[::1], the address as a URL writes it, and shows it bracketed once", async () => {
  const main = await startConsoleProcess({ KV_PATH: ":memory:", HOST: "[::1]" });
  try {
    assert.match(main.origin, /^http:\/\/\[::1\]:\d+$/);
    const health = await fetch(`${main.origin}/healthz`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
  } finally {
    await main.stop();
  }
});

Deno.test("the console command refuses a PORT that is not a plain decimal rather than reading it as another port", async () => {
  // Number() reads "0x0" and "0b0" as 0 (a free port) and "8e3" as 8000: none is what the user meant to type.
  for (const value of ["0x0", "0b0", "0e3", "0.0"]) {
    let started: ConsoleProcess;
    try {
      started = await startConsoleProcess({ KV_PATH: ":memory:", PORT: value, NO_COLOR: "1" });
    } catch (error) {
      assert.match(String(error), new RegExp(`PORT must be an integer from 0 to 65535, got '${RegExp.escape(value)}'`));
      continue;
    }
    await started.stop();
    assert.fail(`PORT=${value} started the console`);
  }
});

/** Starts the console with `env`; resolves with what it printed when it exits, fails the test when it starts. */
async function refusal(env: Record<string, string>): Promise<string> {
  let started: ConsoleProcess;
  try {
    started = await startConsoleProcess({ KV_PATH: ":memory:", NO_COLOR: "1", ...env });
  } catch (error) {
    return String(error);
  }
  await started.stop();
  assert.fail(`${Object.keys(env).join(", ")} started the console`);
}

Deno.test("the console command refuses a HOST with a port or a stray bracket in one line naming HOST", async () => {
  // Deno's own error showed "cannot listen on [127.0.0.1:8080]:0: invalid host ...", naming no variable.
  for (const value of ["127.0.0.1:8080", "localhost:8000", "[::1", "::1]", "[::1]:8000"]) {
    const said = await refusal({ HOST: value });
    assert.match(said, new RegExp(`the console exited: HOST must be [^\\n]*, got '${RegExp.escape(value)}'\\n$`));
  }
});

Deno.test("the console command refuses a METRICS_TOKEN with a control or non-ASCII character, not echoing it", async () => {
  // A control character cannot be put in a header at all; a non-ASCII one is sent as UTF-8 by curl, as Latin-1 by fetch.
  for (const token of ["abc\u0001def-secret-0123456789012345678901", "tökén-secret-0123456789012345678901234"]) {
    const said = await refusal({ METRICS_TOKEN: token });
    assert.match(said, /the console exited: METRICS_TOKEN must [^\n]*\n$/);
    assert.ok(!said.includes("secret-0123"), "the token is not echoed");
  }
});

/** A link-local IPv6 address of this machine with its zone (`fe80::...%eth0`), when it has one. */
const linkLocal = Deno.networkInterfaces().find((i) => i.family === "IPv6" && /^fe80:/i.test(i.address));

Deno.test("the console command refuses a HOST with an IPv6 zone and no PUBLIC_URL in one line naming both", async () => {
  // No URL can carry a zone (the URL standard and browsers refuse "[fe80::1%lo]" and "[fe80::1%25lo]" alike): with an
  // address this machine has, the URL built from HOST was refused as "'publicUrl' must be an absolute URL", naming a
  // setting no one had set; with one it has not, the bind failed first, saying nothing of the zone.
  const own = linkLocal ? [`${linkLocal.address}%${linkLocal.name}`, `[${linkLocal.address}%${linkLocal.name}]`] : [];
  for (const value of [...own, "fe80::1%lo", "[fe80::1%lo]"]) {
    const said = await refusal({ HOST: value });
    assert.match(said, new RegExp(`the console exited: HOST '${RegExp.escape(value)}' has a zone [^\\n]*PUBLIC_URL`));
  }
});

Deno.test({
  name: "the console command listens on a HOST with an IPv6 zone when PUBLIC_URL says where it is reached",
  ignore: linkLocal === undefined,
  async fn() {
    const main = await startConsoleProcess({
      KV_PATH: ":memory:",
      HOST: `${linkLocal!.address}%${linkLocal!.name}`,
      PUBLIC_URL: "http://console.example.test:8000",
    });
    try {
      assert.equal(main.origin, "http://console.example.test:8000");
    } finally {
      await main.stop();
    }
  },
});

Deno.test("the console command refuses a HOST whose zone is empty or odd, saying it is the zone", async () => {
  // "fe80::1%" was refused as "... without a port", naming a port no one had written.
  for (const value of ["fe80::1%", "[fe80::1%]", "fe80::1%eth:0", "fe80::1%et$h0", "fe80::1%a%b"]) {
    const said = await refusal({ HOST: value, PUBLIC_URL: "http://console.example.test:8000" });
    assert.match(said, new RegExp(`the console exited: HOST '${RegExp.escape(value)}' has [^\\n]*zone`));
    assert.doesNotMatch(said, /port/);
  }
});

Deno.test("the console command refuses a switch it cannot read, naming every value it takes", async () => {
  // It said "must be 1 or 0" and took true, on, false and off as well: an operator who wrote "yes" was told less than
  // what works, and one who read the message would not know "true" was fine.
  for (const name of ["ALLOW_PRIVATE_NETWORK", "RELAY_WORKER"]) {
    const said = await refusal({ [name]: "yes" });
    assert.match(
      said,
      new RegExp(`the console exited: ${name} must be 1, true or on, or 0, false or off, got 'yes'\\n$`),
    );
  }
});
