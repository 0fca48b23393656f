// deno task loadtest's command line: every value is run as written, or refused with a RangeError naming its flag;
// a flag that changes rows the run leaves out (--latency, --delayed-ack) is refused rather than ignored.

import assert from "node:assert/strict";
import { parseLoadArgs } from "../../scripts/load_args.ts";

Deno.test("parseLoadArgs(): the defaults, --quick, and each flag read as written", () => {
  assert.deepEqual(parseLoadArgs([]), {
    seconds: 10,
    rounds: 4,
    only: new Set(["local", "remote", "remote-latency"]),
    latencyMs: 20,
    delayedAck: false,
    print: false,
  });
  const quick = parseLoadArgs(["--quick", "--only", "remote"]);
  assert.equal(quick.seconds, 2);
  assert.equal(quick.rounds, 1);
  assert.equal(quick.print, true, "a run limited by --only prints");
  const set = parseLoadArgs(["--seconds", "6", "--rounds", "2", "--only", "remote-latency", "--latency", "50"]);
  assert.deepEqual([set.seconds, set.rounds, set.latencyMs, [...set.only]], [6, 2, 50, ["remote-latency"]]);
  assert.equal(parseLoadArgs(["--only", "remote", "--delayed-ack"]).delayedAck, true);
});

Deno.test("parseLoadArgs(): a number not written in plain decimals, or out of range, is refused naming its flag", () => {
  const cases: [string, string][] = [
    ["--seconds", "0x10"],
    ["--seconds", " 5"],
    ["--seconds", ""],
    ["--seconds", "0.5"],
    ["--seconds", "121"],
    ["--seconds", "1e1"],
    ["--rounds", "2.0"],
    ["--rounds", "0"],
    ["--rounds", "10"],
    ["--rounds", "+2"],
    ["--latency", "0"],
    ["--latency", "-5"],
    ["--latency", "Infinity"],
  ];
  for (const [flag, value] of cases) {
    assert.throws(() => parseLoadArgs([`${flag}=${value}`, "--only", "remote-latency"]), (error: Error) => {
      assert.ok(error instanceof RangeError, `${flag}=${value}: ${error}`);
      assert.ok(error.message.startsWith(`${flag} `), error.message);
      return true;
    });
  }
});

Deno.test("parseLoadArgs(): --latency or --delayed-ack with no KV Connect rows to change is refused, naming --only", () => {
  for (
    const args of [
      ["--only", "local", "--latency", "50"],
      ["--only", "local,remote", "--latency", "50"],
      ["--only", "local", "--delayed-ack"],
    ]
  ) {
    assert.throws(() => parseLoadArgs(args), (error: Error) => {
      assert.ok(error instanceof RangeError, `${args.join(" ")}: ${error}`);
      assert.match(error.message, /^--(latency|delayed-ack) .*--only/);
      return true;
    });
  }
});
