// Deno.env is one per process, shared by every test module `deno test --parallel` runs beside another, and
// Deno.openKv reads DENO_KV_ACCESS_TOKEN from it: a module that sets another token there, even for a moment, makes
// another module's KV Connect open fail with 401. Watches the variable while a run goes on.

/** Samples DENO_KV_ACCESS_TOKEN every few ms until `stop()`, which returns each value seen, in order, once a run. */
export function watchKvToken(): { stop(): (string | undefined)[] } {
  const seen: (string | undefined)[] = [Deno.env.get("DENO_KV_ACCESS_TOKEN")];
  const timer = setInterval(() => {
    const now = Deno.env.get("DENO_KV_ACCESS_TOKEN");
    if (now !== seen.at(-1)) seen.push(now);
  }, 2);
  return {
    stop() {
      clearInterval(timer);
      const now = Deno.env.get("DENO_KV_ACCESS_TOKEN");
      if (now !== seen.at(-1)) seen.push(now);
      return seen;
    },
  };
}
