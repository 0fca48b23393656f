// A delivery as another process's receiver writes it, shared by the live view's tests.

import type { DeliveryStore } from "../../console/log/mod.ts";

/** What `DeliveryStore.write` takes. */
export type Written = Parameters<DeliveryStore["write"]>[0];

/** A one-item postback of hook `h1` at number `seq`, as another process's receiver would write it. */
export function postback(title: string, seq: number): Written {
  return {
    activity: { verb: "jive:created", title },
    webhook: { id: "h1", tenantId: "t1", entity: { resources: { self: { ref: "https://c.example/w/1" } } } },
    community: {},
    receivedAt: Date.now(),
    postbackId: `${title}-`.padEnd(64, "0"),
    index: 0,
    count: 1,
    seq,
  } as unknown as Written;
}
