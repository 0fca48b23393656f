/**
 * The load test's floor: a bare `Deno.serve` on 127.0.0.1 that does only
 * what any safe receiver must, verify the JiveEXTN header's HMAC and claim it
 * with one KV atomic commit on a KV file (`KV_PATH`), then answers 200. It is
 * the baseline of the receiver's targets, not a limit: a receiver whose
 * postbacks share commits (group commit) makes fewer than one commit each and
 * can serve more. The receiver's rows compare to it as well as to the
 * ceiling. The client secret comes in `CLIENT_SECRET`. Prints
 * `listening <url>` once it serves.
 *
 * @module
 */

import { verifyJiveExtn } from "../webhooks/mod.ts";

const secret = Deno.env.get("CLIENT_SECRET") ?? "";
const kv = await Deno.openKv(Deno.env.get("KV_PATH"));

Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening http://127.0.0.1:${port}`),
}, async (req) => {
  const verified = await verifyJiveExtn(req.headers.get("authorization"), secret);
  await req.arrayBuffer();
  if (!verified.ok) return new Response(null, { status: 401 });
  const key = ["floor_seen", verified.timestamp];
  const claimed = await kv.atomic().check({ key, versionstamp: null }).set(key, true, { expireIn: 360_000 }).commit();
  return Response.json(claimed.ok ? { received: 1 } : { received: 0, duplicate: true });
});
