// Forward to's forms sent as a signed-in client would send them, for the
// tests of its routes.

import assert from "node:assert/strict";
import { type Client, csrfOf } from "./_helpers.ts";

/**
 * Adds a destination to `hookId` through its page; resolves with its id and the page the add's redirect leads to
 * (the one showing its secret, this once).
 */
export async function addDestination(
  client: Client,
  hookId: string,
  url: string,
): Promise<{ id: string; html: string }> {
  const path = `/webhooks/${hookId}/forward`;
  const res = await client.post(path, { _csrf: csrfOf(await client.text(path, 200)), url });
  if (res.status !== 303) assert.fail(`Add answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
  const html = await (await client.follow(res)).text();
  return { id: /data-destination="([^"]+)"/.exec(html)![1], html };
}
