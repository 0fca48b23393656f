// The hidden fields of the console's one-time forms (their CSRF token and one-time token), read from the page that
// shows each form, as a browser would send them.

import type { Client } from "./_client.ts";
import { parse } from "./_client.ts";

/** The hidden fields of the form `#formId` on the page at `path` (its CSRF token and one-time token), as shown now. */
async function onceFields(client: Client, path: string, formId: string): Promise<{ _csrf: string; formToken: string }> {
  const page = parse(await client.text(path, 200));
  try {
    const field = (name: string) =>
      (page.document.querySelector(`#${formId} input[name=${name}]`) as HTMLInputElement | null)?.value ?? "";
    return { _csrf: field("_csrf"), formToken: field("formToken") };
  } finally {
    page.close();
  }
}

/** The register form's hidden fields: its CSRF token and the one-time token issued to this session. */
export function registerFormFields(client: Client): Promise<{ _csrf: string; formToken: string }> {
  return onceFields(client, "/webhooks/new", "register");
}

/** The hidden fields of a hook's "Send test event" button (its CSRF token and one-time token), as its page shows them now. */
export function testEventFields(client: Client, hookId: string): Promise<{ _csrf: string; formToken: string }> {
  return onceFields(client, `/webhooks/${encodeURIComponent(hookId)}`, "send-test");
}

/** The hidden fields of a delivery's "Replay to receiver" button, as its page shows them now. */
export function replayFields(client: Client, deliveryId: string): Promise<{ _csrf: string; formToken: string }> {
  return onceFields(client, `/deliveries/${encodeURIComponent(deliveryId)}`, "replay");
}

/** The hidden fields of a delivery's Redeliver button, as its page shows them now. */
export function redeliverFields(client: Client, deliveryId: string): Promise<{ _csrf: string; formToken: string }> {
  return onceFields(client, `/deliveries/${encodeURIComponent(deliveryId)}`, "redeliver");
}
