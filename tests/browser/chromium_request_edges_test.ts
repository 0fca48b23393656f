// API.md, "Library B", request() in real Chromium (whose XMLHttpRequest
// joins a header set twice, where happy-dom's keeps the last): `opts.json`
// is sent with `Content-Type: application/json` unless `opts.headers` names
// another, which is then the only one; and `error` is `null` for a 2xx
// status, else an Error carrying it (299 and 300, the edges). Needs
// /usr/bin/chromium (apt-get install -y chromium) or BROWSER_TESTS=skip.
import assert from "node:assert/strict";
import type * as lib from "../../browser/mod.ts";
import { browserTestOptions } from "../_chromium.ts";
import { openBundlePage } from "./_bundle_page.ts";

type Lib = typeof lib;

Deno.test({
  name: "Library B in Chromium: request() keeps a named Content-Type for json, and only 2xx succeeds",
  ...browserTestOptions,
  fn: () =>
    openBundlePage(
      {
        title: "Library B request edges",
        routes: (_req, url) => {
          const match = /^\/status\/(\d+)$/.exec(url.pathname);
          return match ? new Response("answer", { status: Number(match[1]) }) : undefined;
        },
      },
      async (page, errors) => {
        const call = (url: string, opts?: Record<string, unknown>) =>
          page.evaluate(
            (url: string, opts?: Record<string, unknown>) =>
              new Promise((resolve) => {
                (globalThis as unknown as Lib).request(url, (error, response) =>
                  resolve({
                    error: error && { message: error.message, status: error.status },
                    response,
                  }), opts);
              }),
            url,
            opts,
          );

        const put = await call("/echo", {
          method: "PUT",
          json: { a: 1 },
          headers: { "Content-Type": "application/vnd.api+json" },
        }) as { response: Record<string, unknown> };
        assert.deepEqual(put.response, {
          method: "PUT",
          contentType: "application/vnd.api+json",
          custom: null,
          body: `{"a":1}`,
        });

        assert.deepEqual(await call("/status/299"), { error: null, response: "answer" });
        assert.deepEqual(await call("/status/300"), {
          error: { message: "Request failed with status 300", status: 300 },
          response: "answer",
        });

        await page.close();
        assert.deepEqual(errors, []);
      },
    ),
});
