/**
 * PUBLIC_URL is an origin (docs/console-config.md: "an origin only (the console serves from `/`)"): the console command
 * refuses one with a path, a query, a fragment or user info, and one that is no http(s) URL, in one line naming
 * PUBLIC_URL, rather than starting on another URL than the one given.
 */

import assert from "node:assert/strict";
import { type ConsoleProcess, startConsoleProcess } from "./_main_process.ts";

/** What the console command printed when it exits at once; fails the test (ending it) when it starts. */
async function refused(publicUrl: string): Promise<string> {
  let started: ConsoleProcess;
  try {
    started = await startConsoleProcess({ KV_PATH: ":memory:", NO_COLOR: "1", PUBLIC_URL: publicUrl });
  } catch (error) {
    return String(error).replace(/^Error: the console exited: /, "");
  }
  await started.stop();
  assert.fail(`PUBLIC_URL=${publicUrl} started the console`);
}

Deno.test("the console command refuses a PUBLIC_URL with a path rather than serving its origin's root", async () => {
  // It started "listening on https://example.test/console" while its OAuth redirect URIs, default callbacks and
  // CSRF check used https://example.test/ alone: a proxy that serves it under /console got none of them right.
  for (const value of ["https://example.test/console", "https://example.test/console/", "http://127.0.0.1:8000/x"]) {
    assert.match(await refused(value), /^PUBLIC_URL must be an origin [^\n]*\n$/, value);
  }
});

Deno.test("the console command refuses a PUBLIC_URL with a query, fragment or user info, not echoing user info", async () => {
  for (
    const value of ["https://example.test/?a=1", "https://example.test/#top", "https://user:pw-secret@example.test"]
  ) {
    const said = await refused(value);
    assert.match(said, /^PUBLIC_URL must be an origin [^\n]*\n$/, value);
    assert.ok(!said.includes("pw-secret"), "user info is not echoed");
  }
});

Deno.test("the console command names PUBLIC_URL, not an option of its code, for one that is no http(s) URL", async () => {
  // It said "'publicUrl' must be an absolute URL", naming no variable anyone had set.
  for (const value of ["notaurl", "ftp://example.test", "example.test:8000"]) {
    const said = await refused(value);
    assert.match(said, /^PUBLIC_URL must be [^\n]*\n$/, value);
    assert.doesNotMatch(said, /publicUrl/);
  }
});

Deno.test("the console command takes a PUBLIC_URL that is an origin, with or without its slash", async () => {
  for (const value of ["http://console.example.test:8000", "http://console.example.test:8000/"]) {
    const main = await startConsoleProcess({ KV_PATH: ":memory:", HOST: "127.0.0.1", PUBLIC_URL: value });
    try {
      assert.equal(main.origin, "http://console.example.test:8000");
    } finally {
      await main.stop();
    }
  }
});
