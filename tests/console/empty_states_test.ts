// The empty lists a newcomer meets first say what to do next, with a link to it: the webhooks list said only
// "No webhooks." (for a community filtered on too, or a URL looked up, alike), and the delivery log "No deliveries
// yet.", neither naming the step that fills it.

import assert from "node:assert/strict";
import { type Client, parse, registerHook, withSignedIn } from "./_helpers.ts";

/** The text of `selector` on `path`, and the links in it. */
async function cell(
  client: Client,
  path: string,
  selector: string,
): Promise<{ text: string; links: string[] }> {
  const page = parse(await client.text(path, 200));
  try {
    const el = page.document.querySelector(selector);
    assert.ok(el, `${path}: ${selector}`);
    const links = [...el.querySelectorAll("a")].map((a) => a.getAttribute("href") ?? "");
    return { text: (el.textContent ?? "").replace(/\s+/g, " ").trim(), links };
  } finally {
    page.close();
  }
}

Deno.test("the empty webhooks list and delivery log say what fills them, and link to it", async () => {
  await withSignedIn({ connect: false }, async ({ t, client }) => {
    const none = await cell(client, "/webhooks", "#webhooks tbody td");
    assert.match(none.text, /^No webhook is registered yet\. Register a webhook to receive a community's events/);
    assert.deepEqual(none.links, ["/webhooks/new"]);

    const ofSandbox = await cell(client, "/webhooks?tenant=sandbox-tenant", "#webhooks tbody td");
    assert.match(ofSandbox.text, /^No webhook of Sandbox yet\. Register one/);
    assert.deepEqual(ofSandbox.links, ["/webhooks/new?tenant=sandbox-tenant"]);

    const byUrl = await cell(client, "/webhooks?url=https%3A%2F%2Fnowhere.example%2Fx", "#webhooks tbody td");
    assert.match(byUrl.text, /^No webhook has that webhook URL\. All webhooks$/);
    assert.deepEqual(byUrl.links, ["/webhooks"]);

    const noLog = await cell(client, "/deliveries", "#deliveries-empty");
    assert.match(noLog.text, /^No deliveries yet: .*register a webhook/i);
    assert.deepEqual(noLog.links, ["/webhooks/new"]);

    await registerHook(client, t.origin);
    const waiting = await cell(client, "/deliveries", "#deliveries-empty");
    assert.match(waiting.text, /^No deliveries yet: .*Send test event.*sandbox page/);
    assert.deepEqual(waiting.links, ["/sandbox"]);
  });
});
