// What `deno publish` ships: every path its `include` names is in the repository. `deno publish --dry-run` passes over
// an included path that does not exist, so the package declared `"license": "MIT"` and listed a LICENSE file it did
// not have: a user of the JSR package got no licence text.

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

Deno.test("every path deno.json's publish.include names exists, the licence text among them", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const include: string[] = config.publish.include;
  assert.ok(include.includes("LICENSE"), "the licence text is not shipped");
  for (const path of include) {
    const found = await Deno.stat(new URL(path, ROOT)).then(() => true, () => false);
    assert.ok(found, `publish.include names ${path}, which the repository does not have`);
  }
  const licence = await Deno.readTextFile(new URL("LICENSE", ROOT));
  assert.equal(config.license, "MIT");
  assert.match(licence, /^MIT License\n\nCopyright \(c\) \d{4} /);
  assert.match(licence, /THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND/);
});
