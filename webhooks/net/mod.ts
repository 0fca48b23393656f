/**
 * Addresses that calls to other hosts must not reach: the guard shared by the
 * relay's destinations and the console's outbound calls. And the other side
 * of the network: `keepServing`, Deno.serve that keeps serving when the
 * process runs out of file descriptors (the console, `cli receive`, the
 * sandbox).
 *
 * @module
 */

export * from "./private_address.ts";
export { checkHost, type HostCheck } from "./host_check.ts";
export { keepServing, type KeepServingOptions } from "./keep_serving.ts";
