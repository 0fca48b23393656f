// The console's stylesheet: kept as files of at most 300 lines under console/static/css/, one concern each, and
// served joined in their names' order as the one /static/style.css the pages link, with the same caching headers as
// every static file: the browser still makes one request and meets the rules in the same order.

import assert from "node:assert/strict";
import { startConsole } from "./_helpers.ts";

const CSS_DIR = new URL("../../console/static/css/", import.meta.url);

/** The stylesheet's parts, by name: their order is the cascade's. */
async function parts(): Promise<{ name: string; text: string }[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(CSS_DIR)) {
      if (entry.isFile && entry.name.endsWith(".css")) names.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  names.sort();
  return await Promise.all(
    names.map(async (name) => ({ name, text: await Deno.readTextFile(new URL(name, CSS_DIR)) })),
  );
}

Deno.test("the stylesheet's files under console/static/css/ are each at most 300 lines", async () => {
  const found = await parts();
  assert.ok(found.length >= 2, `expected the stylesheet split into files under ${CSS_DIR.pathname}`);
  for (const { name, text } of found) {
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    assert.ok(lines <= 300, `${name} has ${lines} lines`);
    assert.ok(text.endsWith("\n"), `${name} ends with a line break, so that the next file starts a line`);
  }
});

Deno.test("GET /static/style.css serves the stylesheet's files joined in order, cached as before", async () => {
  const console = await startConsole();
  try {
    const res = await fetch(`${console.origin}/static/style.css`);
    const served = await res.text();
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/css; charset=utf-8");
    assert.equal(res.headers.get("cache-control"), "public, max-age=300");
    const found = await parts();
    assert.ok(found.length >= 2, `expected the stylesheet split into files under ${CSS_DIR.pathname}`);
    assert.equal(served, found.map((part) => part.text).join(""));
    // The parts are not served one by one: the page makes one stylesheet request.
    const part = await fetch(`${console.origin}/static/css/${found[0].name}`);
    await part.body?.cancel();
    assert.equal(part.status, 404);
  } finally {
    await console.close();
  }
});
