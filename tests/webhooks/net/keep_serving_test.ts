// keepServing's contract as Deno.serve's, outside an episode (the episodes themselves: the process tests
// tests/console/fd_exhaustion_test.ts, tests/webhooks/cli/receive_fd_test.ts, tests/sandbox/main_fd_test.ts).

import assert from "node:assert/strict";
import { keepServing } from "../../../webhooks/mod.ts";

Deno.test("keepServing serves, calls onListen once, and ends on shutdown(), a signal or `await using`", async () => {
  const listened: number[] = [];
  const aborts = new AbortController();
  const server = keepServing(
    { hostname: "127.0.0.1", port: 0, signal: aborts.signal, onListen: ({ port }) => listened.push(port) },
    (request) => new Response(new URL(request.url).pathname),
  );
  const res = await fetch(`http://127.0.0.1:${server.addr.port}/here`);
  assert.equal(await res.text(), "/here");
  assert.deepEqual(listened, [server.addr.port]);
  aborts.abort();
  await server.finished;

  const stopped = keepServing({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => new Response("ok"));
  const port = stopped.addr.port;
  await stopped.shutdown();
  await stopped.finished;
  await assert.rejects(fetch(`http://127.0.0.1:${port}/`), "nothing listens once it is shut down");

  let disposedPort = 0;
  {
    await using disposed = keepServing({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => new Response("ok"));
    disposedPort = disposed.addr.port;
  }
  await assert.rejects(fetch(`http://127.0.0.1:${disposedPort}/`), "nothing listens once it is disposed");
});

Deno.test("keepServing throws what Deno.serve throws when it cannot listen at first (a port taken)", async () => {
  const first = keepServing({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => new Response("ok"));
  try {
    assert.throws(
      () => keepServing({ hostname: "127.0.0.1", port: first.addr.port, onListen() {} }, () => new Response("no")),
      Deno.errors.AddrInUse,
    );
  } finally {
    await first.shutdown();
  }
});
