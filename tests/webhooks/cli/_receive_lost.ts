// `cli receive` as a child process over a KV Connect front whose server a test
// loses at will (_kv_front.ts): the set-up the tests of receive's stderr lines
// for 5xx answers share.

import { startReceive } from "./_receive_child.ts";
import { withLostServer } from "./_kv_front.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";

/** The test's own bound on the run: the KV's limit (2 s) plus ample slack for a loaded machine. */
const BOUND_MS = 25_000;

/** A running `cli receive` whose KV the test can lose. */
export interface LostReceive {
  /** Where it receives postbacks. */
  url: URL;
  /** Loses its KV Connect server now: each operation then fails after KV_TIMEOUT_SECONDS (2 s). */
  lose(): Promise<void>;
  /** Stops it as Ctrl-C would (SIGTERM) and resolves with all it wrote. */
  stop(): Promise<{ stdout: string; stderr: string }>;
}

/** Runs `fn` with `cli receive` on `kvPath` (a KV file, served over KV Connect), killed past BOUND_MS at the latest. */
export async function withReceiveOnLostKv(kvPath: string, fn: (run: LostReceive) => Promise<void>): Promise<void> {
  await withLostServer(
    "never",
    async (front) => {
      const env = { NO_COLOR: "1", DENO_KV_ACCESS_TOKEN: TEST_TOKEN, KV_TIMEOUT_SECONDS: "2" };
      const { child, url, stdout, stderr } = await startReceive(front.url, { env, boundMs: BOUND_MS });
      try {
        await fn({
          url,
          lose: () => front.lose(),
          stop: async () => {
            child.kill("SIGTERM");
            await child.status;
            return { stdout: await stdout, stderr: await stderr };
          },
        });
      } finally {
        try {
          child.kill("SIGKILL");
        } catch {
          // already ended
        }
        await child.status;
      }
    },
    undefined,
    kvPath,
  );
}
