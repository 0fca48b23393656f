// `listen` run as `deno task cli` runs it (webhooks/cli.ts), on a KV whose
// first commit after the first SIGINT never lands: its shutdown waits for good
// on the worker giving back the delivery it had in flight, as over a KV link
// that stalled. Later commits (the destination's removal) land as usual.

import { main } from "../../../webhooks/cli/mod.ts";

let armed = false;
let held = false;
const arm = () => {
  armed = true;
  Deno.removeSignalListener("SIGINT", arm);
};
Deno.addSignalListener("SIGINT", arm); // before main's own listener: armed by the time listen starts to end

const atomic = Deno.Kv.prototype.atomic;
Deno.Kv.prototype.atomic = function (this: Deno.Kv) {
  const op = atomic.call(this);
  const commit = op.commit.bind(op);
  op.commit = () => {
    if (!armed || held) return commit();
    held = true;
    return new Promise(() => {}); // never lands
  };
  return op;
};

const status = await main(Deno.args);
Deno.exitCode = status;
Deno.unrefTimer(setTimeout(() => Deno.exit(status), 2_000));
