// request() over happy-dom's XMLHttpRequest against a real server; the same
// cases run in Chromium in chromium_request_test.ts.
import assert from "node:assert/strict";
import { Window } from "happy-dom";
import { request, type RequestError, type RequestOptions, setDoc } from "../../browser/mod.ts";
import { closedPort, type Echo, startServer } from "./_server.ts";

interface Outcome {
  error: RequestError | null;
  response: unknown;
  sameXhr: boolean;
}

function call(url: string, opts?: RequestOptions): Promise<Outcome> {
  return new Promise((resolve) => {
    let xhr: XMLHttpRequest | undefined = undefined;
    xhr = request(url, (error, response, req) => {
      // the callback may run before request() returns; compare once both exist
      queueMicrotask(() => resolve({ error, response, sameXhr: req === xhr }));
    }, opts);
  });
}

Deno.test("request() against a real server, in happy-dom", async (t) => {
  const server = startServer();
  const win = new Window({ url: server.base + "/" });
  setDoc(win.document as unknown as Document);
  try {
    await t.step("GET returns the text with a null error and the XMLHttpRequest", async () => {
      const out = await call(`${server.base}/text`);
      assert.equal(out.error, null);
      assert.equal(out.response, "plain text");
      assert.equal(out.sameXhr, true);
    });

    await t.step("a JSON content type is parsed", async () => {
      const out = await call(`${server.base}/json`);
      assert.deepEqual(out.response, { ok: true, list: [1, 2] });
    });

    await t.step("parseJson parses whatever the content type", async () => {
      assert.equal((await call(`${server.base}/json-as-text`)).response, `{"n":1}`);
      assert.deepEqual((await call(`${server.base}/json-as-text`, { parseJson: true })).response, { n: 1 });
    });

    await t.step(
      "parseJson false keeps a JSON response as text (parsing by content type is only the default)",
      async () => {
        assert.equal((await call(`${server.base}/json`, { parseJson: false })).response, `{"ok":true,"list":[1,2]}`);
        assert.deepEqual((await call(`${server.base}/json`, { parseJson: undefined })).response, {
          ok: true,
          list: [1, 2],
        });
      },
    );

    await t.step("POST with json sends it JSON-encoded with Content-Type application/json", async () => {
      const out = await call(`${server.base}/echo`, { method: "POST", json: { a: [1, "x"] } });
      const echo = out.response as Echo;
      assert.equal(echo.method, "POST");
      assert.equal(echo.contentType, "application/json");
      assert.deepEqual(JSON.parse(echo.body), { a: [1, "x"] });
    });

    await t.step("json keeps a Content-Type named in headers, any case", async () => {
      const out = await call(`${server.base}/echo`, {
        method: "PUT",
        json: { a: 1 },
        headers: { "content-type": "application/vnd.api+json" },
      });
      assert.equal((out.response as Echo).contentType, "application/vnd.api+json");
      assert.equal((out.response as Echo).method, "PUT");
    });

    await t.step(
      "json still sends application/json beside a header whose name merely contains content-type",
      async () => {
        const out = await call(`${server.base}/echo`, {
          method: "POST",
          json: { a: 1 },
          headers: { "X-Content-Type-Options": "nosniff" },
        });
        assert.equal((out.response as Echo).contentType, "application/json");
      },
    );

    await t.step("json or data without a method stays a GET, its body dropped as browsers drop it", async () => {
      // happy-dom's XHR throws on a GET with a body, so the callback never ran and the rejection was uncaught.
      for (const opts of [{ json: { a: 1 } }, { data: "x" }, { method: "head", data: "x" }] as RequestOptions[]) {
        const out = await call(`${server.base}/echo`, opts);
        assert.equal(out.error, null, JSON.stringify(opts));
        if (opts.method) continue; // a HEAD answer has no body to echo
        assert.equal((out.response as Echo).method, "GET");
        assert.equal((out.response as Echo).body, "");
        // nor says what a body is: a Content-Type on a cross-origin GET would cost a preflight for nothing
        assert.equal((out.response as Echo).contentType, null);
      }
    });

    await t.step("data is sent as the body and headers are set", async () => {
      const out = await call(`${server.base}/echo`, {
        method: "POST",
        data: "a=1&b=2",
        headers: { "X-Custom": "yes", "Content-Type": "application/x-www-form-urlencoded" },
      });
      const echo = out.response as Echo;
      assert.equal(echo.body, "a=1&b=2");
      assert.equal(echo.custom, "yes");
      assert.equal(echo.contentType, "application/x-www-form-urlencoded");
    });

    await t.step("props are set on the XMLHttpRequest", async () => {
      const out = await call(`${server.base}/json`, { props: { responseType: "json" } });
      assert.deepEqual(out.response, { ok: true, list: [1, 2] });
    });

    await t.step("a 404 gives an Error carrying the status, and the body", async () => {
      const out = await call(`${server.base}/missing`);
      assert.equal(out.error instanceof Error, true);
      assert.equal(out.error?.status, 404);
      assert.equal(out.error?.message, "Request failed with status 404");
      assert.equal(out.response, "not here");
    });

    await t.step("an error status with application/problem+json gives the parsed problem", async () => {
      const out = await call(`${server.base}/problem`);
      assert.equal(out.error?.status, 422);
      assert.deepEqual(out.response, { title: "Bad thing" });
    });

    await t.step("broken JSON gives the SyntaxError with the status, and the text", async () => {
      const out = await call(`${server.base}/broken-json`);
      assert.equal(out.error?.name, "SyntaxError");
      assert.equal(out.error?.status, 200);
      assert.equal(out.response, `{"n":`);
    });

    await t.step("an empty 204 is a success with an empty response", async () => {
      const out = await call(`${server.base}/empty`, { parseJson: true });
      assert.equal(out.error, null);
      assert.equal(out.response, "");
    });

    await t.step("a network failure gives an Error with status 0", async () => {
      using closed = await closedPort();
      const out = await call(`http://127.0.0.1:${closed.port}/x`);
      assert.equal(out.error?.status, 0);
      assert.equal(out.error?.message, "Network error");
      assert.equal(out.response, null);
    });

    await t.step("bad arguments throw a TypeError before anything is sent", () => {
      assert.throws(() => request(42 as never), {
        name: "TypeError",
        message: "Expected 'url' to be a string, got 42",
      });
      assert.throws(() => request("/x", "cb" as never), { name: "TypeError", message: /'callback'/ });
      assert.throws(() => request("/x", null, "o" as never), { name: "TypeError", message: /'opts'/ });
      assert.throws(() => request("/x", null, { method: 1 as never }), { name: "TypeError", message: /'opts.method'/ });
      assert.throws(() => request("/x", null, { headers: "h" as never }), {
        name: "TypeError",
        message: /'opts.headers'/,
      });
      assert.throws(() => request("/x", null, { props: 1 as never }), { name: "TypeError", message: /'opts.props'/ });
    });

    await t.step("without a callback the request is still sent", async () => {
      const xhr = request(`${server.base}/text`);
      await new Promise((resolve) => xhr.addEventListener("loadend", resolve));
      assert.equal(xhr.status, 200);
    });
  } finally {
    await win.happyDOM.close();
    await server.close();
  }
});
