// DNS rebinding: the guard resolves a destination's name and finds a public
// address; if `fetch` then looked the name up again, a name rebound to a
// private address meanwhile (a TTL of 0 makes that easy) would carry the
// request inside. A plain-HTTP request therefore goes to the address the
// guard checked, the name in `Host`. `Deno.resolveDns` is replaced for the
// test; the relay's `fetch` records where each attempt was sent and passes it
// on, its client included, to a real app on 127.0.0.1.

import assert from "node:assert/strict";
import { createRelay, type RelayForward } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const PUBLIC_A = "93.184.216.34";
const PUBLIC_AAAA = "2606:2800:220:1:248:1893:25c8:1946";

Deno.test("a plain-HTTP destination's request goes to the address the guard checked, its name in Host", async () => {
  const realResolve = Deno.resolveDns;
  // The guard's lookups find a public address. `fetch` resolves with the system's resolver, not this one: a
  // request sent to the name would be looked up afresh, where a rebound name answers a private address.
  Object.assign(Deno, { resolveDns: (_host: string, type: string) => Promise.resolve(type === "A" ? [PUBLIC_A] : []) });
  const app = startApp();
  const kv = await Deno.openKv(":memory:");
  const sent: { url: string; host: string | null; pinned: boolean }[] = [];
  const relay = createRelay(kv, {
    fetch: (input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      const client = (init as { client?: Deno.HttpClient } | undefined)?.client;
      sent.push({ url: String(input), host: headers.get("host"), pinned: client !== undefined });
      // The request itself goes to the test app, through the relay's client: the Host header must arrive as set.
      return fetch(app.url, init);
    },
  });
  const worker = relay.run();
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: "http://rebind.example:8080/hooks", hookIds: ["h1"] });
    await writeAll(kv, relay.write, [postback("h1", 0)]);
    await app.waitFor(1);
    assert.deepEqual(sent, [{ url: `http://${PUBLIC_A}:8080/hooks`, host: "rebind.example:8080", pinned: true }]);
    let forward: RelayForward | undefined;
    await until(async () => ([forward] = await relay.forwards("p".repeat(64))) && forward?.state === "delivered");
    assert.equal(app.received.length, 1);
  } finally {
    await worker.stop();
    await relay.close();
    kv.close();
    await app.close();
    Object.assign(Deno, { resolveDns: realResolve });
  }
});

Deno.test("an IPv6-only name is called at its bracketed address; HTTPS and IP literals keep their URL", async () => {
  const realResolve = Deno.resolveDns;
  Object.assign(Deno, {
    resolveDns: (host: string, type: string) =>
      Promise.resolve(
        type === "AAAA" && host.startsWith("six")
          ? [PUBLIC_AAAA]
          : type === "A" && !host.startsWith("six")
          ? [PUBLIC_A]
          : [],
      ),
  });
  const kv = await Deno.openKv(":memory:");
  const sent: { url: string; host: string | null }[] = [];
  const relay = createRelay(kv, {
    fetch: (input: string | URL | Request, init?: RequestInit) => {
      sent.push({ url: String(input), host: new Headers(init?.headers).get("host") });
      return Promise.resolve(new Response("ok"));
    },
  });
  const worker = relay.run();
  try {
    await seedHooks(kv, ["h1", "h2", "h3"]);
    await relay.destinations.add({ url: "http://six.example/a", hookIds: ["h1"] });
    await relay.destinations.add({ url: "https://secure.example/b", hookIds: ["h2"] });
    await relay.destinations.add({ url: `http://${PUBLIC_A}/c`, hookIds: ["h3"] });
    await writeAll(kv, relay.write, [postback("h1", 0), postback("h2", 1), postback("h3", 2)]);
    await until(() => Promise.resolve(sent.length === 3));
    assert.deepEqual(
      sent.sort((a, b) => a.url.localeCompare(b.url)),
      [
        { url: `http://${PUBLIC_A}/c`, host: null },
        { url: `http://[${PUBLIC_AAAA}]/a`, host: "six.example" },
        { url: "https://secure.example/b", host: null },
      ].sort((a, b) => a.url.localeCompare(b.url)),
    );
  } finally {
    await worker.stop();
    await relay.close();
    kv.close();
    Object.assign(Deno, { resolveDns: realResolve });
  }
});
