// `deno task kvconnect [--path FILE] [--port N] [--token TOKEN] [--latency MS] [--delayed-ack]`:
// starts the test KV Connect server and prints the URL and the access token to use (`--token`, else
// `KV_CONNECT_TOKEN`, at least 12 printable ASCII characters; else a random one). `--latency MS` holds every
// answer back by MS milliseconds (a KV in another region); `--delayed-ack` keeps Linux's delayed acknowledgement
// of a request that arrives in part (up to 40 ms a large commit). A bad flag or token is a usage error (exit 2); a
// port in use exits 1.
// Test equipment: production uses Deno Deploy's KV or the official denokv server.
import { parseArgs } from "node:util";
import { startKvConnectServer } from "./mod.ts";
import { tokenProblem } from "./_serve.ts";
import { checkLatency } from "./_latency.ts";

function usage(message: string): never {
  console.error(
    `${message}\nUsage: deno task kvconnect [--path FILE] [--port N] [--token TOKEN] [--latency MS] [--delayed-ack]`,
  );
  Deno.exit(2);
}

let values: { path?: string; port?: string; token?: string; latency?: string; "delayed-ack"?: boolean };
try {
  ({ values } = parseArgs({
    args: Deno.args,
    options: {
      path: { type: "string" },
      port: { type: "string" },
      token: { type: "string" },
      latency: { type: "string" },
      "delayed-ack": { type: "boolean" },
    },
    strict: true,
  }));
} catch (error) {
  usage(error instanceof Error ? error.message : String(error));
}
// Number("") is 0, as are Number(" ") and Number("0x0"): only a plain decimal is taken, not read as a free port.
const port = values.port === undefined ? 0 : /^\d+$/.test(values.port) ? Number(values.port) : NaN;
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  usage(`Cannot start the KV Connect server: '--port' must be an integer from 0 to 65535, got ${values.port}`);
}
// Number("") is 0 and Number(" 5") is 5: only a plain decimal is taken.
const latencyMs = values.latency === undefined
  ? 0
  : /^\d+(\.\d+)?$/.test(values.latency)
  ? Number(values.latency)
  : NaN;
if (!Number.isFinite(latencyMs)) {
  usage(
    `Cannot start the KV Connect server: '--latency' must be a non-negative finite number of milliseconds, got ${values.latency}`,
  );
}
try {
  checkLatency(latencyMs, "--latency"); // past setTimeout's limit, a latency would hold nothing back
} catch (error) {
  usage((error as Error).message);
}
const token = values.token ?? Deno.env.get("KV_CONNECT_TOKEN");
// denokv's minimum length, and characters a client can send; the token itself is not shown.
const problem = token === undefined
  ? undefined
  : tokenProblem(token, values.token === undefined ? "KV_CONNECT_TOKEN" : "--token");
if (problem) usage(`Cannot start the KV Connect server: ${problem}`);
let server;
try {
  server = await startKvConnectServer({
    path: values.path ?? ":memory:",
    port,
    token,
    latencyMs,
    delayedAck: values["delayed-ack"] ?? false,
  });
} catch (error) {
  console.error(
    `Cannot start the KV Connect server: ${
      error instanceof Deno.errors.AddrInUse
        ? `127.0.0.1:${port} is in use (another process listens there)`
        : error instanceof Error
        ? error.message.replace(/^Cannot start the KV Connect server: /, "")
        : String(error)
    }`,
  );
  Deno.exit(1);
}
console.log(
  `KV Connect server for ${values.path ?? ":memory:"} (test equipment, denokv's limits${
    latencyMs > 0 ? `, every answer ${latencyMs} ms late` : ""
  }${values["delayed-ack"] ? ", delayed acknowledgements" : ""})`,
);
console.log(`url: ${server.url}`);
console.log(`token: ${server.token}`);
console.log(`use: DENO_KV_ACCESS_TOKEN=${server.token} and Deno.openKv("${server.url}")`);
const stop = async () => {
  await server.close();
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", stop);
Deno.addSignalListener("SIGTERM", stop);
