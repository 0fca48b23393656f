/**
 * The load test's ceiling: a bare `Deno.serve` on 127.0.0.1 that reads the
 * body and answers 200, so the receiver's figures show what it costs beyond
 * HTTP itself. Prints `listening <url>` once it serves.
 *
 * @module
 */

Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening http://127.0.0.1:${port}`),
}, async (req) => {
  await req.arrayBuffer();
  return new Response('{"received":1}', { headers: { "content-type": "application/json" } });
});
