// The console as a process, its `POST /hooks/{id}` sent over a raw TCP
// socket what fetch cannot write: the hook id percent-encoded, with `..`, a
// trailing slash, a query string, Unicode that looks like another id, an
// absolute URI; an Authorization trailer; pipelined copies; a chunked body
// labelled gzip. Nothing is answered 500, nothing stored twice, and nothing
// stored from a request the receiver did not verify.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../console/log/mod.ts";
import { createWebhooks, signJiveExtn } from "../../webhooks/mod.ts";
import { startConsoleProcess } from "./_main_process.ts";
import { rawExchange } from "../_raw_http.ts";

const SECRET = btoa(`client secret ${crypto.randomUUID()}`);
const COMMUNITY = { name: "Acme", tenantId: "tenant-acme", baseUrl: "https://acme.example", clientId: "client-acme" };
const REF = "https://acme.example/api/core/v3/webhooks/41";

/** Runs `fn` with a console process on a KV file holding hook-41, and a signer; resolves the titles it accepted. */
async function withConsole(fn: (port: number, sign: () => Promise<string>) => Promise<void>): Promise<string[]> {
  const dir = await Deno.makeTempDir({ prefix: "console_raw_" });
  const kvPath = `${dir}/console.kv`;
  try {
    const setup = await Deno.openKv(kvPath);
    const hooks = createWebhooks(setup);
    await hooks.communities.save({ ...COMMUNITY, clientSecret: SECRET });
    await hooks.save({ id: "hook-41", tenantId: COMMUNITY.tenantId, entity: { resources: { self: { ref: REF } } } });
    setup.close();
    const served = await startConsoleProcess({ HOST: "127.0.0.1", KV_PATH: kvPath });
    try {
      let timestamp = Date.now();
      const sign = () => signJiveExtn({ ...COMMUNITY, jiveUrl: COMMUNITY.baseUrl, timestamp: timestamp++ }, SECRET);
      await fn(Number(new URL(served.origin).port), sign);
    } finally {
      await served.stop();
    }
    const kv = await Deno.openKv(kvPath);
    try {
      const page = await new DeliveryStore(kv).page({ status: "accepted", limit: 100 });
      return page.values.map((delivery) => delivery.title ?? "");
    } finally {
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A postback whose one item is titled `title`. */
function body(title: string): string {
  return JSON.stringify([{ webhook: REF, activity: { verb: "jive:created", title } }]);
}

/** A request with `authorization` and `payload` (declared length) to `target`. */
function post(target: string, authorization: string, payload: string): string {
  const length = new TextEncoder().encode(payload).length;
  return `POST ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\nContent-Length: ${length}\r\n\r\n${payload}`;
}

Deno.test("the console's receiver takes a hook id only as written, answering odd paths without 500 and storing each postback once", async () => {
  const titles = await withConsole(async (port, sign) => {
    const cases: [string, number][] = [
      ["/hooks/hook-41", 200],
      ["/hooks/hook%2D41", 200], // the same id, percent-encoded
      ["/hooks/hook-41?x=1", 200],
      ["http://elsewhere.example/hooks/hook-41", 200], // absolute-form
      ["/hooks/hook-41/", 404], // not a receiver path
      ["/hooks//hook-41", 404],
      ["/hooks/../hooks/hook-41", 404],
      ["/hooks/%2e%2e", 404], // the id "..": no such hook
      ["/hooks/hook-41%2F..", 404],
      ["/hooks/%EF%BD%88%EF%BD%8F%EF%BD%8F%EF%BD%8B-41", 404], // full-width "hook-41", which NFKC makes "hook-41"
      ["/hooks/hook%E2%80%9141", 404], // a non-breaking hyphen
      ["/hooks/%", 404],
      ["/hooks/%00", 404],
    ];
    // Each case on a connection of its own, all at once: each still waits 0.8 s of quiet for an answer too many, but
    // those waits overlap instead of adding up.
    const exchanges = await Promise.all(
      cases.map(async ([target]) =>
        rawExchange(port, [post(target, await sign(), body(target))], { quietMs: 800, expect: 1 })
      ),
    );
    for (const [i, [target, status]] of cases.entries()) {
      const exchange = exchanges[i];
      assert.deepEqual(exchange.answers.map((answer) => answer.status), [status], target);
    }
    // The Authorization header only as a trailer: not verified, so not stored.
    const payload = body("trailer");
    const trailer = await rawExchange(port, [
      `POST /hooks/hook-41 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTrailer: Authorization\r\n\r\n` +
      `${
        new TextEncoder().encode(payload).length.toString(16)
      }\r\n${payload}\r\n0\r\nAuthorization: ${await sign()}\r\n\r\n`,
    ], { quietMs: 800, expect: 1 });
    assert.deepEqual(trailer.answers.map((answer) => answer.status), [401]);
    // A refused request, then a good one, then two copies of it, pipelined on one connection.
    const good = post("/hooks/hook-41", await sign(), body("pipelined"));
    const pipelined = await rawExchange(port, [post("/hooks/hook-41", "JiveEXTN x=1", body("forged")) + good + good], {
      expect: 3,
    });
    assert.deepEqual(pipelined.answers.map((answer) => [answer.status, JSON.parse(answer.body)]), [
      [401, { error: "Unauthorized: JiveEXTN header has no signature as its last parameter" }],
      [200, { received: 1 }],
      [200, { received: 0, duplicate: true }],
    ]);
  });
  assert.deepEqual(titles.toSorted(), [
    "/hooks/hook%2D41",
    "/hooks/hook-41",
    "/hooks/hook-41?x=1",
    "http://elsewhere.example/hooks/hook-41",
    "pipelined",
  ]);
});
