// Ids and tenant ids from URLs and forms far longer than any stored one (a KV
// key holds 2048 bytes): every page answers 4xx (not found, or a form error),
// never 500, and the console keeps serving.

import assert from "node:assert/strict";
import { csrfOf, registerFormFields, withHook } from "./_helpers.ts";

const LONG = "x".repeat(3000);

Deno.test("pages and forms given an id or tenant id too long for a KV key answer 4xx, never 500", async () => {
  await withHook(async (_t, { id }, client) => {
    const csrf = csrfOf(await client.text("/communities/new", 200));
    const gets = [
      `/communities/${LONG}`,
      `/communities/${LONG}/connect`,
      `/communities/${LONG}/reconcile`,
      `/webhooks/${LONG}`,
      `/webhooks?id=${LONG}`,
      `/deliveries/${LONG}`,
      `/webhooks?tenant=${LONG}`,
      `/deliveries?hook=${LONG}`,
      `/deliveries?tenant=${LONG}`,
      `/webhooks/new?tenant=${LONG}`,
    ];
    const posts = [
      `/communities/${LONG}`,
      `/communities/${LONG}/remove`,
      `/communities/${LONG}/reconcile`,
      `/webhooks/${LONG}/enabled`,
      `/webhooks/${LONG}/events`,
      `/webhooks/${LONG}/label`,
      `/webhooks/${LONG}/test`,
      `/webhooks/${LONG}/unregister`,
      `/deliveries/${LONG}/replay`,
    ];
    const answers: string[] = [];
    for (const path of gets) {
      const res = await client.fetch(path);
      await res.body?.cancel();
      if (res.status >= 500) answers.push(`GET ${path.slice(0, 30)}… ${res.status}`);
    }
    for (const path of posts) {
      const res = await client.post(path, { _csrf: csrf, confirm: "yes", name: "n", baseUrl: "https://x.example" });
      await res.body?.cancel();
      if (res.status >= 500) answers.push(`POST ${path.slice(0, 30)}… ${res.status}`);
    }
    const register = await client.post("/webhooks", {
      ...await registerFormFields(client),
      tenantId: LONG,
      events: "user_account",
      callback: "https://receiver.example/hook",
    });
    await register.body?.cancel();
    if (register.status >= 500) answers.push(`POST /webhooks (long tenantId) ${register.status}`);
    const community = await client.post("/communities", {
      _csrf: csrf,
      name: "Long",
      tenantId: LONG,
      baseUrl: "https://long.example",
    });
    await community.body?.cancel();
    if (community.status >= 500) answers.push(`POST /communities (long tenantId) ${community.status}`);
    assert.deepEqual(answers, []);
    assert.equal((await client.fetch(`/webhooks/${id}`)).status, 200, "still serving");
  });
});
