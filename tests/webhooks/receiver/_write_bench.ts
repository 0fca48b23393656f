// The write-mode bench the receiver_write_*_test.ts files share: a receiver
// over `write` that stores each item in ["inbox", ...], a second hook of
// tenant A, and the body of a postback.

import {
  createReceiver,
  createWebhooks,
  type ReceiverAttempt,
  type ReceiverOptions,
  type Webhooks,
} from "../../../webhooks/mod.ts";
import { item, NOW, seed } from "../_receiver.ts";

/** The self URL of hook-a2, a second hook of tenant A. */
export const REF_A2 = "https://a.example/api/core/v3/webhooks/12";

/** What a write-mode bench gives its test. */
export interface WriteBench {
  kv: Deno.Kv;
  hooks: Webhooks;
  handle(request: Request): Promise<Response>;
  attempts: ReceiverAttempt[];
  /** The inbox: stored items by key, with their versionstamps. */
  inbox(): Promise<Deno.KvEntry<Record<string, unknown>>[]>;
}

/** A receiver in write mode over `kv` (default a fresh `:memory:` KV) that stores each item in ["inbox", ...]. */
export async function withWriter(
  fn: (bench: WriteBench) => Promise<void>,
  options: Partial<ReceiverOptions> = {},
  kv?: Deno.Kv,
): Promise<void> {
  const own = kv === undefined;
  kv ??= await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    if (own) await seed(hooks);
    await hooks.save({
      id: "hook-a2",
      tenantId: "tenant-a",
      entity: { id: "12", resources: { self: { ref: REF_A2 } } },
    });
    const attempts: ReceiverAttempt[] = [];
    const receiver = createReceiver(hooks, {
      write: (postback, atomic) => {
        if (postback.activity.throw) throw new Error("the consumer failed");
        atomic.set(["inbox", postback.postbackId, postback.index], {
          verb: postback.activity.verb,
          hook: postback.webhook.id,
          ...(postback.seq === undefined ? {} : { seq: postback.seq }),
        });
      },
      onAttempt: (attempt) => {
        attempts.push(attempt);
      },
      now: () => NOW,
      ...options,
    });
    const inbox = async () => {
      const out: Deno.KvEntry<Record<string, unknown>>[] = [];
      for await (const e of kv!.list<Record<string, unknown>>({ prefix: ["inbox"] })) out.push(e);
      return out;
    };
    await fn({ kv, hooks, handle: receiver.handle, attempts, inbox });
  } finally {
    if (own) kv.close();
  }
}

/** A postback body of `items`, or of one item to hook-a when none are given. */
export const body = (...items: unknown[]) => JSON.stringify(items.length ? items : [item()]);
