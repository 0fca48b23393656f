// API.md, "Relay": destination URLs pass the private-address guard; add and
// update refuse "a loopback, private or link-local address". input_test.ts
// holds one address of each range; this holds their edges, the neighbours
// just outside them (which must pass), and the other spellings of localhost.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";

const REFUSED = [
  "http://127.255.255.255/", // 127.0.0.0/8, last
  "http://10.0.0.0/", // 10.0.0.0/8, first
  "http://10.255.255.255/", // last
  "http://172.16.0.0/", // 172.16.0.0/12, first
  "http://172.31.255.255/", // last
  "http://192.168.0.0/", // 192.168.0.0/16, first
  "http://192.168.255.255/", // last
  "http://169.254.0.0/", // 169.254.0.0/16, first
  "http://169.254.255.255/", // last
  "http://[::]/", // unspecified
  "http://[fc00::1]/", // fc00::/7, its lower half
  "http://[fdff:ffff::1]/", // and its upper
  "http://[febf:ffff::1]/", // fe80::/10, last
  "http://[::ffff:172.31.0.1]/", // IPv4-mapped, dotted
  "http://[::ffff:c0a8:101]/", // IPv4-mapped 192.168.1.1, hex
  "http://LOCALHOST:8080/", // any case
  "http://localhost./", // a trailing dot
  "http://api.localhost/", // a subdomain
  "http://127.1/", // short forms the URL parser completes
  "http://0x7f.1/",
  "http://0177.0.0.1/",
];

const ALLOWED = [
  "http://126.255.255.255/",
  "http://128.0.0.1/",
  "http://9.255.255.255/",
  "http://11.0.0.0/",
  "http://172.15.255.255/",
  "http://172.32.0.0/",
  "http://192.167.255.255/",
  "http://192.169.0.0/",
  "http://169.253.255.255/",
  "http://169.255.0.0/",
  "http://[2606:4700:4700::1111]/",
  "http://[fbff::1]/", // just below fc00::/7
  "https://localhost.example.com/", // a name that only begins with localhost
];

Deno.test("destinations.add() refuses each private range to its edges and takes the addresses just outside", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv);
  try {
    for (const url of REFUSED) {
      await assert.rejects(
        relay.destinations.add({ url }),
        (e: Error) => e instanceof TypeError && /loopback, private or link-local/.test(e.message),
        url,
      );
    }
    assert.deepEqual(await relay.destinations.list(), [], "nothing refused was stored");
    for (const url of ALLOWED) {
      const added = await relay.destinations.add({ url });
      assert.equal(added.url, url);
      // update() runs the same guard: the edge just inside is refused, the destination kept as it was.
      await assert.rejects(relay.destinations.update(added.id, { url: "http://172.31.255.255/" }), TypeError);
      assert.equal((await relay.destinations.get(added.id))?.url, url);
    }
  } finally {
    await relay.close();
    kv.close();
  }
});
