// deno task relay-latency's command line: every value is run as written, or refused with a RangeError naming its
// flag; never read as something else (hex, exponent, blank, a sign) or run twice.

import assert from "node:assert/strict";
import fc from "fast-check";
import { parseLatencyArgs } from "../../scripts/relay_latency.ts";

/** The flag a value is refused for, or the value it is run with. */
function outcome(args: string[]): { refused: string } | { ran: ReturnType<typeof parseLatencyArgs> } {
  try {
    return { ran: parseLatencyArgs(args) };
  } catch (error) {
    assert.ok(error instanceof RangeError, `${args.join(" ")}: ${error}`);
    return { refused: error.message };
  }
}

const WRITTEN_AS = ["1e3", "-0", " 5", "5 ", "0x10", "0b1", "0o7", "20.5", "", " ", "+5", "1_0", "Infinity", "NaN"];

Deno.test("--latency, --rate, --seconds: a number written other than in plain decimals is refused, naming its flag", () => {
  for (const flag of ["latency", "rate", "seconds"]) {
    for (const value of WRITTEN_AS) {
      if (flag !== "latency" && value === "20.5") continue; // a rate or a length may have a fraction
      // --latency runs with kvconnect only: named, so that only the value's spelling can refuse it.
      const got = outcome([`--${flag}=${value}`, ...(flag === "latency" ? ["--kv", "kvconnect"] : [])]);
      assert.ok("refused" in got, `--${flag}=${JSON.stringify(value)} ran: ${JSON.stringify(got)}`);
      assert.match(got.refused, new RegExp(`^--${flag} `));
    }
  }
});

Deno.test("--seconds below 1 and --rate of 0 are refused, as their messages say; --rate 0.5 is sparse traffic", () => {
  for (const args of [["--seconds", "0.5"], ["--rate", "0"], ["--seconds", "0"], ["--rate", "1000.5"]]) {
    const got = outcome(args);
    assert.ok("refused" in got && got.refused.startsWith(args[0]), `${args.join(" ")}: ${JSON.stringify(got)}`);
  }
  const sparse = outcome(["--rate", "0.5"]);
  assert.equal("ran" in sparse && sparse.ran.rate, 0.5, JSON.stringify(sparse));
});

Deno.test("--kv: a kind named twice, an empty item or an unknown kind is refused, naming --kv and the item", () => {
  for (const [kv, item] of [["file,file", "file"], ["memory,kvconnect,memory", "memory"], ["file,", "''"]]) {
    const got = outcome(["--kv", kv]);
    assert.ok("refused" in got, `--kv ${kv} ran: ${JSON.stringify(got)}`);
    assert.ok(got.refused.startsWith("--kv ") && got.refused.includes(item), got.refused);
  }
  assert.deepEqual(parseLatencyArgs(["--kv", "kvconnect, file"]).kinds, ["kvconnect", "file"]);
});

Deno.test("fuzz: any --latency is run as the whole number it spells in decimals, or refused naming --latency", () => {
  fc.assert(fc.property(fc.oneof(fc.string(), fc.constantFrom(...WRITTEN_AS), fc.nat(2000).map(String)), (value) => {
    const got = outcome([`--latency=${value}`, "--kv", "kvconnect"]);
    if ("refused" in got) return assert.match(got.refused, /^--latency /);
    assert.match(value, /^\d+$/);
    assert.equal(got.ran.latencyMs, Number(value));
    assert.ok(got.ran.latencyMs <= 1000);
  }));
});

Deno.test("fuzz: any --kv runs each kind it lists once, in order, or is refused naming --kv", () => {
  const item = fc.oneof(fc.constantFrom("file", "memory", "kvconnect", "", " file", "File"), fc.string());
  fc.assert(fc.property(fc.array(item, { minLength: 1, maxLength: 5 }), (items) => {
    const got = outcome([`--kv=${items.join(",")}`]); // "--kv -x" would be a usage TypeError of parseArgs
    if ("refused" in got) return assert.match(got.refused, /^--kv /);
    assert.deepEqual(got.ran.kinds, items.map((k) => k.trim()));
    assert.equal(new Set(got.ran.kinds).size, got.ran.kinds.length);
  }));
});

Deno.test("--latency without kvconnect in --kv is refused, naming both: it delays the KV Connect server only", () => {
  for (
    const args of [["--latency", "50"], ["--latency=0", "--kv", "file,memory"], ["--kv", "memory", "--latency", "20"]]
  ) {
    const got = outcome(args);
    assert.ok("refused" in got, `${args.join(" ")} ran: ${JSON.stringify(got)}`);
    assert.match(got.refused, /^--latency .*--kv/);
  }
  assert.equal(parseLatencyArgs(["--kv", "file,kvconnect", "--latency", "50"]).latencyMs, 50);
  assert.equal(parseLatencyArgs([]).latencyMs, 20);
});
