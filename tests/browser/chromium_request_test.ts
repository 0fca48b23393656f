// Library B in real Chromium, over the network: addScript() loading a script
// and failing on a missing one, and request() (XHR) against a real 127.0.0.1
// server. Needs /usr/bin/chromium (apt-get install -y chromium) or
// BROWSER_TESTS=skip.
import assert from "node:assert/strict";
import type * as lib from "../../browser/mod.ts";
import { browserTestOptions } from "../_chromium.ts";
import { openBundlePage } from "./_bundle_page.ts";
import { closedPort } from "./_server.ts";

type Lib = typeof lib;

/** A script addScript() loads: it counts its loads. */
const OK_JS = "window.okLoaded = (window.okLoaded || 0) + 1;";

Deno.test({
  name: "Library B in Chromium: addScript() and request()",
  ...browserTestOptions,
  fn: (t) =>
    openBundlePage(
      { title: "Library B requests", served: { "/ok.js": OK_JS } },
      async (page, errors) => {
        await t.step("addScript() loads a script and reports load and error", async () => {
          const out = await page.evaluate(() =>
            new Promise<string[]>((resolve) => {
              const b = globalThis as unknown as Lib;
              const seen: string[] = [];
              b.addScript("/ok.js", {
                load: () => {
                  seen.push(`load ${(globalThis as unknown as { okLoaded: number }).okLoaded}`);
                  b.addScript("/missing.js", { error: () => resolve([...seen, "error"]) });
                },
              });
            })
          );
          assert.deepEqual(out, ["load 1", "error"]);
        });

        const call = (url: string, opts?: Record<string, unknown>) =>
          page.evaluate(
            (url: string, opts?: Record<string, unknown>) =>
              new Promise((resolve) => {
                (globalThis as unknown as Lib).request(url, (error, response, xhr) =>
                  resolve({
                    error: error && { message: error.message, status: error.status },
                    response,
                    isXhr: xhr instanceof XMLHttpRequest,
                  }), opts);
              }),
            url,
            opts,
          );

        await t.step("request() GETs text and parsed JSON with a null error", async () => {
          assert.deepEqual(await call("/text"), { error: null, response: "plain text", isXhr: true });
          assert.deepEqual(await call("/json"), { error: null, response: { ok: true, list: [1, 2] }, isXhr: true });
          assert.deepEqual((await call("/json-as-text", { parseJson: true }) as { response: unknown }).response, {
            n: 1,
          });
        });

        await t.step("request() POSTs json with its content type, headers and method", async () => {
          const out = await call("/echo", { method: "POST", json: { a: 1 }, headers: { "X-Custom": "c" } }) as {
            response: Record<string, unknown>;
          };
          assert.deepEqual(out.response, {
            method: "POST",
            contentType: "application/json",
            custom: "c",
            body: `{"a":1}`,
          });
          const put = await call("/echo", {
            method: "PATCH",
            data: "raw",
            headers: { "Content-Type": "text/plain" },
          }) as {
            response: Record<string, unknown>;
          };
          assert.deepEqual(put.response, { method: "PATCH", contentType: "text/plain", custom: null, body: "raw" });
        });

        await t.step("request() reports a 404 with its status, and problem+json parsed", async () => {
          assert.deepEqual(await call("/nowhere"), {
            error: { message: "Request failed with status 404", status: 404 },
            response: "not here",
            isXhr: true,
          });
          assert.deepEqual(await call("/problem"), {
            error: { message: "Request failed with status 422", status: 422 },
            response: { title: "Bad thing" },
            isXhr: true,
          });
        });

        await t.step("request() reports a network failure with status 0", async () => {
          using closed = await closedPort();
          assert.deepEqual(await call(`http://127.0.0.1:${closed.port}/x`), {
            error: { message: "Network error", status: 0 },
            response: null,
            isXhr: true,
          });
        });

        await page.close();
        assert.deepEqual(errors, []);
      },
    ),
});
