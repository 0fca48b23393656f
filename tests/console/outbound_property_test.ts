// Property tests of the console's private-address check (issue 13 item 2):
// every spelling of an internal IPv4 address, IPv6 embeddings included, is
// refused, and the same spellings of a public one are let through.

import { isPrivateAddress } from "../../console/lib/outbound.ts";

Deno.test("isPrivateAddress() property: every spelling of an internal IPv4 address is refused", async () => {
  const fc = (await import("fast-check")).default;
  const octet = fc.integer({ min: 0, max: 255 });
  const group = fc.integer({ min: 0, max: 0xffff }).map((x) => x.toString(16));
  const internal = fc.oneof(
    fc.tuple(fc.constant(10), octet, octet, octet),
    fc.tuple(fc.constant(127), octet, octet, octet),
    fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), octet, octet),
    fc.tuple(fc.constant(192), fc.constant(168), octet, octet),
    fc.tuple(fc.constant(169), fc.constant(254), octet, octet),
    fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), octet, octet),
  );
  fc.assert(
    fc.property(internal, fc.array(group, { minLength: 5, maxLength: 5 }), ([a, b, c, d], [g, h, i, j, k]) => {
      for (const spelling of embeddings([a, b, c, d], [g, h, i, j, k])) {
        if (!isPrivateAddress(spelling)) throw new Error(`${spelling} (${a}.${b}.${c}.${d}) passed`);
      }
      // What the URL parser makes of other spellings (decimal, hex) is a dotted address too.
      const host = new URL(`http://${(a * 2 ** 24 + b * 2 ** 16 + c * 2 ** 8 + d)}/`).hostname;
      return isPrivateAddress(host);
    }),
    { numRuns: 500 },
  );
});

Deno.test("isPrivateAddress() property: the same spellings of a public IPv4 address are let through", async () => {
  const fc = (await import("fast-check")).default;
  const octet = fc.integer({ min: 0, max: 255 });
  const group = fc.integer({ min: 0, max: 0xffff }).map((x) => x.toString(16));
  // Public whatever the other octets: 8.0.0.0/8 (and a Teredo server at 65.54.227.120 below).
  const external = fc.tuple(fc.constantFrom(8, 45, 93), octet, octet, octet);
  fc.assert(
    fc.property(external, fc.array(group, { minLength: 5, maxLength: 5 }), ([a, b, c, d], [g, h, i, j, k]) => {
      for (const spelling of embeddings([a, b, c, d], [g, h, i, j, k], [65, 54, 227, 120])) {
        if (isPrivateAddress(spelling)) throw new Error(`${spelling} (${a}.${b}.${c}.${d}) refused`);
      }
    }),
    { numRuns: 300 },
  );
});

/**
 * Every IPv6 form that embeds the IPv4 address `[a, b, c, d]`: mapped,
 * compatible, translated, NAT64, 6to4, Teredo (as server; as client with
 * `other` as the server, XOR 0xffffffff), ISATAP; `g`..`k` fill the groups
 * the form leaves free.
 */
function embeddings([a, b, c, d]: number[], [g, h, i, j, k]: string[], other = [a, b, c, d]): string[] {
  const v4 = `${a}.${b}.${c}.${d}`;
  const hex = (x: number, y: number) => (((x & 255) << 8) | (y & 255)).toString(16);
  const [hi, lo] = [hex(a, b), hex(c, d)];
  const [notHi, notLo] = [hex(~a, ~b), hex(~c, ~d)];
  const server = `${hex(other[0], other[1])}:${hex(other[2], other[3])}`;
  return [
    `::ffff:${v4}`,
    `::ffff:${hi}:${lo}`,
    ...(a === 0 ? [] : [`::${v4}`, `::${hi}:${lo}`]),
    `::ffff:0:${v4}`,
    `::ffff:0:${hi}:${lo}`,
    `64:ff9b::${v4}`,
    `64:ff9b::${hi}:${lo}`,
    `2002:${hi}:${lo}::`,
    `2002:${hi}:${lo}:${g}:${h}:${i}:${j}:${k}`,
    `[2002:${hi}:${lo}:${g}::${k}]`,
    `2001:0:${hi}:${lo}:${g}:${h}:${hex(~other[0], ~other[1])}:${hex(~other[2], ~other[3])}`,
    `2001:0:${server}:${g}:${h}:${notHi}:${notLo}`,
    `2001:0:${server}::${notHi}:${notLo}`,
    // ISATAP's interface id after a global prefix (2606:4700::/32).
    `2606:4700:${g}:${h}::5efe:${v4}`,
    `2606:4700:${g}:${h}:200:5efe:${hi}:${lo}`,
  ];
}
