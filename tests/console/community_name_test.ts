// A community name refused for its bidirectional control characters comes
// back without them, as a hook's name does (issue 44, defect 14): the
// field kept the invisible U+202E, so saving again was refused again.

import assert from "node:assert/strict";
import { parse, signInAtForm, startConsole } from "./_helpers.ts";

Deno.test("a community name refused for a bidirectional control comes back without it, in the add and edit forms", async () => {
  const t = await startConsole();
  try {
    const { client, csrf } = await signInAtForm(t.origin, "/communities/new");
    const typed = "Evil\u202Etxt.exe";
    const forms = [
      ["/communities", { tenantId: "evil", baseUrl: "https://evil.example" }],
      ["/communities/sandbox-tenant", {
        baseUrl: String((await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!.baseUrl),
      }],
    ] as const;
    for (const [path, fields] of forms) {
      const res = await client.post(path, { _csrf: csrf, name: typed, ...fields });
      const page = parse(await res.text());
      try {
        assert.equal(res.status, 400, path);
        const error = page.document.querySelector("[role=alert]")?.textContent ?? "";
        assert.match(error, /bidirectional control characters \(U\+202E\)/, path);
        assert.match(error, /removed below/, path);
        const value = (page.document.querySelector("input[name=name]") as HTMLInputElement).value;
        assert.equal(value, "Eviltxt.exe", path);
      } finally {
        page.close();
      }
    }
    assert.equal(await t.app.webhooks.communities.findByTenantID("evil"), null, "nothing was saved");
  } finally {
    await t.close();
  }
});
