// What the acceptance checks share: a community, its hooks' entities, and a
// stub `fetch` that records what it receives (init exactly as passed).

import type { Community } from "../../webhooks/mod.ts";
import { keysUnder } from "./platform.ts";

export const BASE = "https://jive.example.com";
export const CALLBACK = "https://receiver.example/hooks/1";
export const PLACE = `${BASE}/api/core/v3/places/1`;
export const SELF = `${BASE}/api/core/v3/webhooks/`;

export const COMMUNITY: Community = {
  name: "Acme",
  tenantId: "t1",
  baseUrl: BASE,
  clientId: "cid",
  clientSecret: "csecret",
  oauth: { access_token: "A1", refresh_token: "R1" },
};

export function entityOf(id: string, fields: Record<string, unknown> = {}) {
  return { id, resources: { self: { ref: SELF + id, allowed: ["GET", "PUT", "DELETE"] } }, enabled: true, ...fields };
}

/** One call a stub `fetch` received, with `init` exactly as it was passed. */
export interface Call {
  url: string;
  method: string;
  init: RequestInit | undefined;
  authorization: string | null;
  body: string;
}

/** A stub `fetch` that records its calls and answers with `answer`. */
export function stubFetch(
  answer: (call: Call) => Response | Promise<Response>,
): { calls: Call[]; fetch: typeof fetch } {
  const calls: Call[] = [];
  async function fake(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    const call = {
      url: request.url,
      method: request.method,
      init,
      authorization: request.headers.get("authorization"),
      body: await request.text(),
    };
    calls.push(call);
    return await answer(call);
  }
  return { calls, fetch: fake };
}

export async function allKeys(kv: Deno.Kv): Promise<string[]> {
  return (await keysUnder(kv, [])).map((key) => JSON.stringify(key));
}
