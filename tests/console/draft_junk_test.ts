// A form kept when its session had ended (a draft), as KV keeps it, edited by hand (or left by a bad write) into
// junk: its fields null, a number, a list, fields of the wrong type, a save time that is no time. Its page, opened
// after signing in again, still answers (the draft taken as none, or its good fields only), never a 500.

import assert from "node:assert/strict";
import { draftKey } from "../../console/lib/kv_keys.ts";
import { Client, signIn, type TestConsole, withSignedInHook } from "./_helpers.ts";

/** Junk over a kept draft of `page` (the forward form's page, or the hook's page for its label and events forms). */
function junkOf(hookPage: string): Record<string, unknown>[] {
  return [
    { fields: null },
    { fields: 5 },
    { fields: ["https://x.example/in"] },
    { fields: { url: 5 } },
    { savedAt: "x" },
    { kind: 5 },
    { page: hookPage, kind: "label", fields: null },
    { page: hookPage, kind: "label", fields: { name: 5, description: {} } },
    { page: hookPage, kind: "events", fields: null },
    { page: hookPage, kind: "events", fields: { events: [5, null, {}] } },
  ];
}

/** Sends the forward form of `hookId` without a session as a new browser, edits its draft by `over`, signs in. */
async function keptThenEdited(t: TestConsole, hookId: string, over: Record<string, unknown>) {
  const client = new Client(t.origin);
  const forged = await client.post(`/webhooks/${hookId}/forward`, { _csrf: "x", url: "https://kept.example/in" });
  await forged.body?.cancel();
  const returnTo = new URL(forged.headers.get("location")!, t.origin).searchParams.get("returnTo")!;
  const draftId = new URL(returnTo, t.origin).searchParams.get("draft") ?? "";
  const kept = (await t.kv.get<Record<string, unknown>>(draftKey(draftId))).value;
  assert.ok(kept, "the form is kept as a draft");
  const edited = { ...kept, ...over };
  await t.kv.set(draftKey(draftId), edited);
  await signIn(t.origin, client);
  return { client, path: `${edited.page}?draft=${draftId}` };
}

Deno.test("a draft edited into junk: its page answers after sign-in, never a 500", async () => {
  await withSignedInHook({}, async ({ t, hookId }) => {
    for (const over of junkOf(`/webhooks/${hookId}`)) {
      const { client, path } = await keptThenEdited(t, hookId, over);
      const res = await client.fetch(path);
      await res.body?.cancel();
      assert.equal(res.status, 200, `${path} over the draft ${JSON.stringify(over)}`);
    }
  });
});
