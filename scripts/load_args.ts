/**
 * `deno task loadtest`'s command line (the flags are described in
 * loadtest.ts): each value is run as written in plain decimals, or refused
 * with a RangeError naming its flag; a flag that would change only rows the
 * run leaves out is refused rather than ignored.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { parseOnly, type RowSet } from "./load_remote.ts";

/** What one run of the load test is asked for. */
export interface LoadArgs {
  seconds: number;
  rounds: number;
  only: Set<RowSet>;
  latencyMs: number;
  delayedAck: boolean;
  /** Print the section rather than write BENCHMARKS.md (asked for, or a partial run). */
  print: boolean;
}

// Number() would take '0x10', '1e1', ' 5' or '' as numbers nobody wrote.
const decimal = (value: string) => /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;

/** Reads the load test's flags from `args`. */
export function parseLoadArgs(args: string[]): LoadArgs {
  const { values } = parseArgs({
    args,
    options: {
      seconds: { type: "string", default: "10" },
      rounds: { type: "string", default: "4" },
      quick: { type: "boolean", default: false },
      print: { type: "boolean", default: false },
      only: { type: "string" },
      latency: { type: "string" },
      "delayed-ack": { type: "boolean", default: false },
    },
    strict: true,
  });
  const seconds = values.quick ? 2 : decimal(values.seconds);
  if (!(seconds >= 1 && seconds <= 120)) {
    throw new RangeError(`--seconds must be from 1 to 120, got '${values.seconds}'`);
  }
  const rounds = values.quick ? 1 : /^\d+$/.test(values.rounds) ? Number(values.rounds) : NaN;
  if (!(rounds >= 1 && rounds <= 9)) {
    throw new RangeError(`--rounds must be a whole number from 1 to 9, got '${values.rounds}'`);
  }
  const only = parseOnly(values.only);
  const latencyMs = decimal(values.latency ?? "20");
  if (!(latencyMs > 0) || !Number.isFinite(latencyMs)) {
    throw new RangeError(`--latency must be a positive number of milliseconds, got '${values.latency}'`);
  }
  if (values.latency !== undefined && !only.has("remote-latency")) {
    throw new RangeError(
      `--latency holds back the remote-latency rows only: add them to --only (got '${values.only}')`,
    );
  }
  const delayedAck = values["delayed-ack"];
  if (delayedAck && !only.has("remote") && !only.has("remote-latency")) {
    throw new RangeError(`--delayed-ack changes the KV Connect rows only: add remote to --only (got '${values.only}')`);
  }
  return {
    seconds,
    rounds,
    only,
    latencyMs,
    delayedAck,
    print: values.print || values.only !== undefined || delayedAck,
  };
}
