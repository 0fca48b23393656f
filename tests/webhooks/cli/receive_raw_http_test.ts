// `cli receive` as a child process, sent over a raw TCP socket what fetch
// cannot write: Expect: 100-continue, chunk extensions, upper-case and
// zero-padded chunk sizes, an Authorization trailer, Content-Length beside
// Transfer-Encoding, two Content-Length headers, HTTP/1.0, an absolute URI,
// obs-fold, pipelined copies, and transfer codings other than chunked. Each
// is answered with one of the receiver's statuses, never 500, and each
// verified postback is printed once.

import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { signJiveExtn } from "../../../webhooks/mod.ts";
import { ACME_HOOK_REF, SECRET, seedAcmeHook, withSetup } from "./_cli_setup.ts";
import { startReceive } from "./_receive_child.ts";
import { rawExchange } from "../../_raw_http.ts";

const BODY = JSON.stringify([{ webhook: ACME_HOOK_REF, activity: { verb: "jive:created", title: "Hello" } }]);
const LENGTH = new TextEncoder().encode(BODY).length;

/** Runs `fn` with `cli receive` on a KV holding hook h7, a signer of fresh headers, and its stdout lines once stopped. */
async function withReceive(
  fn: (port: number, sign: () => Promise<string>) => Promise<void>,
): Promise<string[]> {
  let lines: string[] = [];
  await withSetup(async (kv) => {
    await seedAcmeHook(kv);
    const { child, url, stdout } = await startReceive(kv, { boundMs: 120_000 });
    let timestamp = Date.now();
    const sign = () =>
      signJiveExtn(
        { clientId: "client-1", jiveUrl: "https://acme.example", tenantId: "tenant-acme", timestamp: timestamp++ },
        SECRET,
      );
    try {
      await fn(Number(url.port), sign);
    } finally {
      child.kill("SIGINT");
      await child.status;
    }
    lines = (await stdout).split("\n").filter((line) => line !== "");
  });
  return lines;
}

/** A request head of `cli receive` with `headers` (CRLF-separated lines). */
function head(headers: string[], line = "POST /hooks HTTP/1.1"): string {
  return [line, "Host: x", ...headers, "", ""].join("\r\n");
}

Deno.test("cli receive answers raw HTTP/1.1 edge cases with the receiver's statuses and prints each postback once", async () => {
  const seen: string[] = [];
  const lines = await withReceive(async (port, sign) => {
    const chunked = (size: string, ext = "", trailer = "") => `${size}${ext}\r\n${BODY}\r\n0\r\n${trailer}\r\n`;
    const cases: [string, (a: string) => string[], number[], boolean?][] = [
      [
        "Expect: 100-continue, the body after",
        (a) => [head(["Expect: 100-continue", `Authorization: ${a}`, `Content-Length: ${LENGTH}`]), BODY],
        [100, 200],
      ],
      [
        "a chunk extension and a trailer",
        (
          a,
        ) => [
          head([`Authorization: ${a}`, "Transfer-Encoding: chunked"]) +
          chunked(LENGTH.toString(16), ";name=value", "X-Trailer: 1\r\n"),
        ],
        [200],
      ],
      [
        "an upper-case, zero-padded chunk size",
        (
          a,
        ) => [
          head([`Authorization: ${a}`, "Transfer-Encoding: chunked"]) +
          chunked(`000${LENGTH.toString(16).toUpperCase()}`),
        ],
        [200],
      ],
      [
        "two Content-Length headers that agree",
        (a) => [head([`Authorization: ${a}`, `Content-Length: ${LENGTH}`, `Content-Length: ${LENGTH}`]) + BODY],
        [200],
      ],
      [
        "HTTP/1.0 with keep-alive",
        (
          a,
        ) => [
          head([`Authorization: ${a}`, "Connection: keep-alive", `Content-Length: ${LENGTH}`], "POST /hooks HTTP/1.0") +
          BODY,
        ],
        [200],
      ],
      [
        "an absolute URI",
        (
          a,
        ) => [
          head([`Authorization: ${a}`, `Content-Length: ${LENGTH}`], "POST http://elsewhere.example/hooks HTTP/1.1") +
          BODY,
        ],
        [200],
      ],
      [
        "the scheme in lower case",
        (a) => [head([`Authorization: ${a.replace("JiveEXTN", "jiveextn")}`, `Content-Length: ${LENGTH}`]) + BODY],
        [200],
      ],
      [
        "HTTP/1.0 without keep-alive",
        (a) => [head([`Authorization: ${a}`, `Content-Length: ${LENGTH}`], "POST /hooks HTTP/1.0") + BODY],
        [200],
        true,
      ],
      // Refused: never stored.
      [
        "the Authorization header only in a trailer",
        (
          a,
        ) => [
          head(["Transfer-Encoding: chunked", "Trailer: Authorization"]) +
          chunked(LENGTH.toString(16), "", `Authorization: ${a}\r\n`),
        ],
        [401],
      ],
      [
        "Content-Length beside Transfer-Encoding",
        (
          a,
        ) => [
          head([`Authorization: ${a}`, "Content-Length: 5", "Transfer-Encoding: chunked"]) +
          chunked(LENGTH.toString(16)),
        ],
        [400],
        true,
      ],
      [
        "two Content-Length headers that disagree",
        (
          a,
        ) => [head([`Authorization: ${a}`, `Content-Length: ${LENGTH}`, `Content-Length: ${LENGTH + 1}`]) + BODY + " "],
        [400],
        true,
      ],
      [
        "the Authorization header folded over two lines",
        (a) => [head([`Authorization: ${a.slice(0, 20)}`, ` ${a.slice(20)}`, `Content-Length: ${LENGTH}`]) + BODY],
        [400],
        true,
      ],
      [
        "a tab after the scheme",
        (a) => [head([`Authorization: ${a.replace(" ", "\t")}`, `Content-Length: ${LENGTH}`]) + BODY],
        [401],
      ],
      [
        "Expect: 100-continue past the limit",
        (a) => [head(["Expect: 100-continue", `Authorization: ${a}`, "Content-Length: 2097152"])],
        [100, 413],
      ],
    ];
    // Each case on a connection of its own, all at once: each still waits 1 s of quiet for an answer too many or a
    // close, but those waits overlap instead of adding up.
    const exchanges = await Promise.all(
      cases.map(async ([, parts, statuses]) =>
        rawExchange(port, parts(await sign()), { gapMs: 50, quietMs: 1000, expect: statuses.length })
      ),
    );
    for (const [i, [name, , statuses, closed]] of cases.entries()) {
      const exchange = exchanges[i];
      assert.deepEqual(exchange.answers.map((answer) => answer.status), statuses, name);
      if (closed !== undefined) assert.equal(exchange.closed, closed, name);
      seen.push(name);
    }
    // Two copies of one postback pipelined on one connection, then a third: stored once, the others copies.
    const one = head([`Authorization: ${await sign()}`, `Content-Length: ${LENGTH}`]) + BODY;
    const pipelined = await rawExchange(port, [one + one + one], { expect: 3 });
    assert.deepEqual(pipelined.answers.map((answer) => [answer.status, JSON.parse(answer.body)]), [
      [200, { received: 1 }],
      [200, { received: 0, duplicate: true }],
      [200, { received: 0, duplicate: true }],
    ]);
  });
  assert.equal(seen.length, 14);
  assert.equal(lines.length, 8 + 1, lines.join("\n"));
});

Deno.test("cli receive refuses a body with a transfer coding other than chunked with a 400 naming it, printing nothing", async () => {
  const lines = await withReceive(async (port, sign) => {
    const gzipped = gzipSync(new TextEncoder().encode(BODY));
    const cases: [string, string, Uint8Array][] = [
      ["gzip, chunked of gzipped bytes", "gzip, chunked", gzipped],
      [
        "gzip, chunked of plain bytes (labelled gzip, so not what the sender meant)",
        "gzip, chunked",
        new TextEncoder().encode(BODY),
      ],
      ["deflate, chunked", "deflate, chunked", new TextEncoder().encode(BODY)],
    ];
    // At once, each on its own connection, as above.
    const exchanges = await Promise.all(cases.map(async ([, coding, bytes]) => {
      const request = head([`Authorization: ${await sign()}`, `Transfer-Encoding: ${coding}`]) +
        `${bytes.length.toString(16)}\r\n${String.fromCharCode(...bytes)}\r\n0\r\n\r\n`;
      return await rawExchange(port, [request], { quietMs: 1000, latin1: true, expect: 1 });
    }));
    for (const [i, [name]] of cases.entries()) {
      const exchange = exchanges[i];
      assert.deepEqual(exchange.answers.map((answer) => answer.status), [400], name);
      assert.match(JSON.parse(exchange.answers[0].body).error, /Transfer-Encoding/, name);
    }
  });
  assert.deepEqual(lines, []);
});
