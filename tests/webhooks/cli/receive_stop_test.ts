// `cli receive` stopped (Ctrl-C, or SIGTERM: a process manager's or docker's
// stop) while a postback is on its way in: the postback is still answered,
// and printed, before the process ends with status 0. Deno.serve's `signal`
// closes every connection at once, so the platform got no answer at all (its
// delivery failed, the item printed nowhere).

import assert from "node:assert/strict";
import { signJiveExtn } from "../../../webhooks/mod.ts";
import { ACME_HOOK_REF, SECRET, seedAcmeHook, withSetup } from "./_cli_setup.ts";
import { startReceive } from "./_receive_child.ts";

const REF = ACME_HOOK_REF;

/** Reads from `conn` until a whole answer with a body of its `content-length` came, or the connection closed. */
async function answerOf(conn: Deno.Conn): Promise<string> {
  const buf = new Uint8Array(4096);
  let text = "";
  while (true) {
    const head = text.indexOf("\r\n\r\n");
    const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? NaN);
    if (head >= 0 && text.length - head - 4 >= length) return text;
    const n = await conn.read(buf).catch(() => null);
    if (n === null) return text;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`cli receive given ${signal} while a postback's body is on its way still answers and prints it`, async () => {
    await withSetup(async (kv) => {
      await seedAcmeHook(kv);
      const { child, url, stdout, stderr } = await startReceive(kv);
      const authorization = await signJiveExtn(
        { clientId: "client-1", jiveUrl: "https://acme.example", tenantId: "tenant-acme", timestamp: Date.now() },
        SECRET,
      );
      const body = JSON.stringify([{ webhook: REF, activity: { verb: "jive:created", title: "Hello" } }]);
      const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
      let answer = "";
      try {
        const encoder = new TextEncoder();
        await conn.write(encoder.encode(
          `POST /hooks HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${authorization}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
        ));
        await new Promise((resolve) => setTimeout(resolve, 1_000)); // the receiver reads the body (a slow machine too)
        child.kill(signal);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await conn.write(encoder.encode(body.slice(10))).catch(() => {});
        answer = await answerOf(conn);
      } finally {
        conn.close();
      }
      const status = await child.status;
      const [out, err] = [await stdout, await stderr];
      assert.match(answer, /^HTTP\/1\.1 200/, `the postback's answer: ${JSON.stringify(answer)}`);
      assert.match(answer, /\{"received":1\}$/);
      assert.equal(status.code, 0, err);
      assert.equal(out.trim().split("\n").filter(Boolean).length, 1, `stdout: ${out}`);
    });
  });
}
