/**
 * The one access token of every KV Connect test server: `deno test --parallel`
 * runs test modules side by side in one process, whose DENO_KV_ACCESS_TOKEN
 * (read by Deno.openKv) they share, so each sets the same value.
 *
 * @module
 */

/**
 * The token every test server takes: under `deno task test:kvconnect` the
 * preload's own (`KV_CONNECT_TOKEN`), so a test that starts a server of its
 * own leaves the preload's KV reachable.
 */
export const TEST_TOKEN: string = Deno.env.get("KV_CONNECT_TOKEN") ?? "kvconnect-example-token";
