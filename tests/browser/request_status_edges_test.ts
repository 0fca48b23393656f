// API.md, "Library B": request's `error` is `null` for a 2xx status, else an
// `Error` carrying `status`. The edges of the 2xx range against a real server,
// in happy-dom: 200 and 299 succeed, 300 (no Location: not followed) fails.
import assert from "node:assert/strict";
import { Window } from "happy-dom";
import { request, type RequestError, setDoc } from "../../browser/mod.ts";
import { startServer } from "./_server.ts";

function statusOf(url: string): Promise<RequestError | null> {
  return new Promise((resolve) => request(url, (error) => resolve(error)));
}

Deno.test("request() gives a null error for 200 and 299 and an Error carrying 300 for a 300", async () => {
  const server = startServer((_req, url) => {
    const match = /^\/status\/(\d+)$/.exec(url.pathname);
    return match ? new Response("answer", { status: Number(match[1]) }) : undefined;
  });
  const win = new Window({ url: server.base + "/" });
  setDoc(win.document as unknown as Document);
  try {
    assert.equal(await statusOf(`${server.base}/status/200`), null);
    assert.equal(await statusOf(`${server.base}/status/299`), null);
    const error = await statusOf(`${server.base}/status/300`);
    assert.ok(error instanceof Error, "a 300 is not a 2xx");
    assert.equal(error.status, 300);
    assert.equal(error.message, "Request failed with status 300");
  } finally {
    await win.happyDOM.close();
    await server.close();
  }
});
