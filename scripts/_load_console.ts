/**
 * The load test's console: `console/main.ts` as it runs, with its KV's
 * commits counted (atomic commits, sets and deletes), so the load test can
 * report what one postback costs in commits. The count is written to
 * `COMMIT_COUNT_FILE` every 100 ms.
 *
 * @module
 */

import { main } from "../console/main.ts";

const countFile = Deno.env.get("COMMIT_COUNT_FILE");
let commits = 0;

/**
 * The KV with its commits counted; everything else is the KV's own. Its
 * methods are wrapped once, on the instance: a Proxy would make a bound
 * function at every property read, a cost the floor does not pay.
 */
function counted(kv: Deno.Kv): Deno.Kv {
  const atomic = kv.atomic.bind(kv);
  const set = kv.set.bind(kv);
  const remove = kv.delete.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = () => {
      commits++;
      return commit();
    };
    return op;
  };
  kv.set = (...args) => {
    commits++;
    return set(...args);
  };
  kv.delete = (key) => {
    commits++;
    return remove(key);
  };
  return kv;
}

// Written beside it, then renamed over it: a reader never sees the file empty or half written (a write in place
// truncates first, and a count read then made a process's commits come out negative).
if (countFile) {
  setInterval(() => {
    Deno.writeTextFileSync(`${countFile}.tmp`, String(commits));
    Deno.renameSync(`${countFile}.tmp`, countFile);
  }, 100);
}
await main(async (location) => counted(await Deno.openKv(location)));
