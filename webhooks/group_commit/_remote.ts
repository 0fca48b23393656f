// Whether a KV is remote (KV Connect: Deno Deploy's KV or denokv), asked once
// per KV object before its first group: an operation of eleven checks that
// cannot hold (no key has a versionstamp of all f's) fails its checks on a
// local KV, and is refused for its check count by a remote one (at most ten
// there), writing nothing either way. A KV that fails to answer counts as
// local: it then learns the ten-check limit from its first refused commit.

import { withLockRetry } from "../kv/mod.ts";
import { REMOTE_CHECKS } from "./_group_take.ts";

/** A versionstamp no key has: the probe's checks cannot hold. */
const NO_VERSIONSTAMP = "ffffffffffffffffffff";

/** Whether `kv` is a remote KV, by one operation that writes nothing. */
export async function isRemote(kv: Deno.Kv): Promise<boolean> {
  const probe = kv.atomic();
  for (let i = 0; i <= REMOTE_CHECKS; i++) {
    probe.check({ key: ["__group_commit_probe", i], versionstamp: NO_VERSIONSTAMP });
  }
  try {
    await withLockRetry(() => probe.commit());
    return false;
  } catch (error) {
    return /too many checks/i.test(String((error as Error | null)?.message));
  }
}
