/**
 * Addresses that calls to other hosts must not reach: the guard shared by the
 * relay's destinations and the console's outbound calls.
 *
 * @module
 */

export * from "./private_address.ts";
export { checkHost, type HostCheck } from "./host_check.ts";
