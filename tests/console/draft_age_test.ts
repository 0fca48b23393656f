// A form kept after its session ended waits 30 minutes, not until KV drops it (KV's expiry is lazy): its page
// opened later (its address in the history of a shared computer, say) fills in nothing of it.

import assert from "node:assert/strict";
import { draftKey } from "../../console/lib/kv_keys.ts";
import { approveConsent, type Client, csrfOf, parse, withHook } from "./_helpers.ts";

/** Follows the redirect of a form sent without a session through sign-in; resolves with where sign-in leads. */
async function signInAgain(client: Client, res: Response): Promise<string> {
  await res.body?.cancel();
  assert.equal(res.status, 303);
  const signin = parse(await client.text(res.headers.get("location")!, 200));
  let link = "";
  try {
    link = signin.document.querySelector("#signin-link")?.getAttribute("href") ?? "";
  } finally {
    signin.close();
  }
  const back = await approveConsent(client, await client.fetch(link));
  const done = await client.fetch(back.headers.get("location")!);
  await back.body?.cancel();
  await done.body?.cancel();
  return done.headers.get("location")!;
}

Deno.test("a form kept more than 30 minutes ago fills in nothing, even while KV still holds it", async () => {
  let shown: (string | null)[] = [];
  await withHook(async (t, { id }, client) => {
    const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
    const out = await client.post("/signout", { _csrf: csrf });
    await out.body?.cancel();
    const res = await client.post(`/webhooks/${id}/label`, { _csrf: csrf, name: "Orders feed", description: "" });
    const returnTo = await signInAgain(client, res);
    const draft = new URL(returnTo, t.origin).searchParams.get("draft");
    assert.ok(draft, returnTo);
    const entry = await t.kv.get<Record<string, unknown>>(draftKey(draft));
    assert.ok(entry.value, "the form is kept");
    await t.kv.set(entry.key, { ...entry.value, savedAt: Date.now() - 30 * 60_000 - 1000 });
    const page = parse(await client.text(returnTo, 200));
    try {
      shown = [
        page.document.querySelector(".notice")?.textContent ?? null,
        (page.document.querySelector("#label-name") as HTMLInputElement).value,
      ];
    } finally {
      page.close();
    }
  });
  assert.deepEqual(shown, [null, ""], "an old form is filled in");
});
