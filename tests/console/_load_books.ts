// What the console's load and fault tests share: a console process on a KV
// file, and the books of what that file stores.

import { countDeliveries, type Started, startProcess } from "../../scripts/load_processes.ts";

/** A console in a process of its own on `kvPath`, with the receiver's rate limit off. */
export function consoleProcess(kvPath: string): Promise<Started> {
  return startProcess(["console/main.ts"], {
    PORT: "0",
    HOST: "127.0.0.1",
    KV_PATH: kvPath,
    SANDBOX: "on",
    DELIVERIES_RETAIN: "100000",
    RATE_LIMIT_RECEIVER: "0",
  });
}

/** Per postback id, how many of its items are stored; and how many items are stored twice. */
export async function books(kvPath: string, hookId: string): Promise<{ items: Map<string, number>; repeats: number }> {
  const { total, titles } = await countDeliveries(kvPath, hookId);
  const items = new Map<string, number>();
  for (const title of titles) {
    const id = title.replace(/^Load /, "").replace(/ #\d+$/, "");
    items.set(id, (items.get(id) ?? 0) + 1);
  }
  return { items, repeats: total - titles.size };
}
