/**
 * The command line: `main(argv, io)`, its argument parser, commands and
 * output formats. `webhooks/cli.ts` is the entry point that runs it.
 *
 * @module
 */

export * from "./main.ts";
