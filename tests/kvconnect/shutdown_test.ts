// Closing the server while a client's watch request is still arriving: the
// watch must end with the server, or the HTTP server's graceful shutdown
// waits for it for good (a fresh-clone run once hung in a listen test here).
import assert from "node:assert/strict";
import { encodeKey, encodeRequest, startKvConnectServer } from "../../kvconnect/mod.ts";

Deno.test("close: a watch whose body arrives while the server closes ends, and close returns", async () => {
  const server = await startKvConnectServer();
  const meta = await (await fetch(server.url, {
    method: "POST",
    headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
    body: JSON.stringify({ supportedVersions: [2, 3] }),
  })).json();
  let send!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (send = c) });
  // HTTP/2 without TLS, as Deno's KV Connect client speaks to an http:// server.
  const client = Deno.createHttpClient({ http1: false, http2: true });
  const answer = fetch(new URL(`${meta.endpoints[0].url}/watch`, server.url), {
    client,
    method: "POST",
    headers: {
      authorization: `Bearer ${meta.token}`,
      "content-type": "application/x-protobuf",
      "x-denokv-version": String(meta.version),
      "x-denokv-database-id": meta.databaseId,
    },
    body,
  } as RequestInit); // `client` is Deno's own member of RequestInit, not in this project's DOM types
  await new Promise((r) => setTimeout(r, 100)); // the server holds the request and waits for its body
  const closed = server.close();
  send.enqueue(encodeRequest("watch", { keys: [{ key: encodeKey(["w"]) }] }) as Uint8Array<ArrayBuffer>);
  send.close();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    closed.then(() => "closed"),
    new Promise((r) => timer = setTimeout(() => r("still waiting after 5 s"), 5_000)),
  ]);
  clearTimeout(timer);
  // Whatever the client got, drain it so the test leaks nothing.
  await answer.then((a) => a.body?.cancel()).catch(() => {});
  client.close();
  assert.equal(outcome, "closed");
});
