// Forward to's Add sent twice at once (a double click with scripts off) behind a load balancer: the two POSTs reach
// two console processes on one KV. Within one process the adds of a hook run one at a time; across processes they
// race, and whichever answer the browser shows last must still lead to the new destination's secret, never to
// "already receives this hook's postbacks (its secret was shown when it was added)" when it never was.

import assert from "node:assert/strict";
import { startBalanced } from "./_balanced.ts";
import { connectSandbox, csrfOf, registerHook, signIn } from "./_helpers.ts";

Deno.test("Forward to's Add sent to two consoles at once: each answer leads to the secret of the destination added", async () => {
  await using lb = await startBalanced();
  const client = await signIn(lb.origin);
  await connectSandbox(client, lb.origin);
  const hookId = await registerHook(client, lb.origin);
  const path = `/webhooks/${hookId}/forward`;
  const csrf = csrfOf(await client.text(path, 200));
  const refused: string[] = [];
  for (let i = 0; i < 12; i++) {
    const form = { _csrf: csrf, url: `https://app.example/in/${i}` };
    lb.next(i % 2 ? "A" : "B", i % 2 ? "B" : "A");
    const answers = await Promise.all([client.post(path, form), client.post(path, form)]);
    const locations: string[] = [];
    for (const res of answers) {
      const body = await res.text();
      assert.doesNotMatch(body, /whsec_/, "a POST's answer holds the secret");
      if (res.status === 303 && /[?&]reveal=/.test(res.headers.get("location") ?? "")) {
        locations.push(res.headers.get("location")!);
      } else refused.push(`add ${i}: ${res.status} ${/already receives[^<]*/.exec(body)?.[0] ?? body.slice(0, 200)}`);
    }
    // Whichever answer the browser shows, its page shows the secret (once: the other page then says it was shown).
    const shown = await Promise.all(locations.map((l) => client.text(l, 200)));
    const secrets = shown.filter((html) => /whsec_/.test(html)).length;
    if (secrets !== 1) refused.push(`add ${i}: the secret shown on ${secrets} of ${shown.length} pages`);
  }
  assert.deepEqual(refused, [], "an Add sent twice led to no secret, or was told it was shown when it never was");
});
