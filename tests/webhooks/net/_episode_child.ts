// A process for keep_serving_episode_test.ts: keepServing on port 0, kept alive by a timer until its first episode
// (held connections use up its descriptors), which the mode (the first argument) answers: `abort` aborts its signal,
// `shutdown` calls shutdown() twice at once, `unref` unrefs the server (the timer holds the process until it serves
// again), `taken` takes its address with a listener of its own. In each but `taken` it must then end on its own.

import { keepServing } from "../../../webhooks/mod.ts";

const mode = Deno.args[0];
const aborts = new AbortController();
const alive = setInterval(() => {}, 1_000);
let episodes = 0;
const server = keepServing({
  hostname: "127.0.0.1",
  port: 0,
  signal: aborts.signal,
  onListen: ({ port }) => console.log(`listening on ${port}`),
  onDown: (message) => {
    console.error(`down: ${message}`);
    if (++episodes > 1) return;
    if (mode !== "unref") clearInterval(alive);
    if (mode === "abort") aborts.abort();
    if (mode === "shutdown") Promise.all([server.shutdown(), server.shutdown()]).then(() => console.log("shut down"));
    if (mode === "unref") server.unref();
    // taken: another listener takes the address the failed server let go (held for good: the process is killed).
    if (mode === "taken") {
      Object.assign(globalThis, { taken: Deno.listen({ hostname: "127.0.0.1", port: server.addr.port }) });
    }
  },
  // unref: the server it listens on again must be unref'd too, once nothing else holds the process.
  onUp: (message) => {
    console.error(`up: ${message}`);
    clearInterval(alive);
  },
}, () => new Response("ok"));
server.finished.then(() => console.log("finished"), (error) => console.log(`finished rejected: ${error}`));
