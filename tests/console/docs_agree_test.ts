// What docs/console.md and docs/cli.md say about the receiver's methods and
// the CLI's KV file agrees with what the code and the repository do (issue 24,
// defects 17 and 18).

import assert from "node:assert/strict";
import { startConsole } from "./_helpers.ts";

const root = new URL("../../", import.meta.url);

Deno.test("GET, PUT, PATCH and DELETE of /hooks/{id} get the HTML 404 that docs/console.md describes", async () => {
  const doc = await Deno.readTextFile(new URL("docs/console.md", root));
  // Read as prose: where the page wraps its lines is no part of what it says.
  const receiver = doc.slice(doc.indexOf("## The postback receiver")).replace(/\s+/g, " ");
  assert.doesNotMatch(receiver.slice(0, 1500), /`405` for another method/);
  assert.match(receiver, /another method \(GET, PUT, PATCH, DELETE\) gets the console's HTML `404` page/);
  const t = await startConsole();
  try {
    for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
      const res = await fetch(`${t.origin}/hooks/some-receiver`, { method });
      const body = await res.text();
      assert.equal(res.status, 404, method);
      assert.match(res.headers.get("content-type") ?? "", /text\/html/, method);
      assert.match(body, /There is no page here/, method);
    }
  } finally {
    await t.close();
  }
});

Deno.test("the CLI's default KV file is ignored by git, and docs/cli.md says how to use the console's KV", async () => {
  for (const name of ["webhooks.kv", "webhooks.kv-wal", "webhooks.kv-shm"]) {
    const out = await new Deno.Command("git", {
      args: ["check-ignore", "--no-index", "-q", name],
      cwd: root,
    }).output();
    assert.equal(out.code, 0, `${name} is ignored`);
  }
  const doc = await Deno.readTextFile(new URL("docs/cli.md", root));
  assert.match(doc, /--kv \.data\/console\.kv/);
});
