/**
 * The command line: `main(argv, io)`, its argument parser, commands and
 * output formats. `webhooks/cli.ts` is the entry point that runs it, and
 * exports `main` and `CliIO` alone: the coalesced 5xx lines of `receive`
 * are exported here for this repository's tests (driven by a test clock).
 *
 * @module
 */

export * from "./main.ts";
export { type FailureClock, type FailureLines, failureLines, QUIET_GAP_MS } from "./receive/mod.ts";
