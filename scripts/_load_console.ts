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

// Written over itself at fixed width (20 digits, zero-padded: `Number` reads it), through one handle opened once,
// and only when the count moved: a reader never sees the file empty (a write that truncated first made a count
// read then come out 0, and a process's commits negative). Written beside it and renamed over it every 100 ms,
// as before, the count cost the console about 7 µs of its main thread a postback under load, counted against it.
if (countFile) {
  const file = Deno.openSync(countFile, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  let written = -1;
  const write = () => {
    if (commits === written) return;
    written = commits;
    file.seekSync(0, Deno.SeekMode.Start);
    file.writeSync(encoder.encode(String(commits).padStart(20, "0")));
  };
  write();
  setInterval(write, 100);
}
await main(async (location) => counted(await Deno.openKv(location)));
