/**
 * A KV Connect server for tests: Deno KV's remote protocol, as denokv
 * documents it, served over a local Deno KV with denokv's limits. Test
 * equipment, not part of the published package; production uses Deno
 * Deploy's KV or the official denokv server.
 *
 * Start it from a script with {@linkcode startKvConnectServer}, or from a
 * shell with `deno task kvconnect [--path FILE] [--port N] [--latency MS]
 * [--delayed-ack]`; `--latency` (`latencyMs`) holds every answer back, a KV in
 * another region, and `--delayed-ack` (`delayedAck`) keeps the kernel's
 * delayed acknowledgement of a request that arrives in part.
 *
 * @module
 */
export * from "./server.ts";
export * from "./protocol.ts";
/** Follows the HTTP/2 frames of one direction of a connection, as the server's front does (for tests). */
export { FrameCursor } from "./_ack.ts";
export * from "./process_token.ts";
