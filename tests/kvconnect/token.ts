/**
 * The one access token of every KV Connect test server: `deno test --parallel`
 * runs test modules side by side in one process, whose DENO_KV_ACCESS_TOKEN
 * (read by Deno.openKv) they share, so each sets the same value.
 *
 * @module
 */

/** The token every test server takes. */
export const TEST_TOKEN = "kvconnect-example-token";
