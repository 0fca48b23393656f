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

/** A KV whose commits are counted; everything else is the KV's own. */
function counted(kv: Deno.Kv): Deno.Kv {
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = () => {
            commits++;
            return commit();
          };
          return op;
        };
      }
      if (prop === "set" || prop === "delete") {
        const write = target[prop].bind(target) as (...args: unknown[]) => unknown;
        return (...args: unknown[]) => {
          commits++;
          return write(...args);
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

if (countFile) setInterval(() => Deno.writeTextFileSync(countFile, String(commits)), 100);
await main(async (location) => counted(await Deno.openKv(location)));
