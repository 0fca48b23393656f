// `deno task kvconnect [--path FILE] [--port N]`: starts the test KV Connect
// server and prints the URL and the access token to use. Test equipment:
// production uses Deno Deploy's KV or the official denokv server.
import { parseArgs } from "node:util";
import { startKvConnectServer } from "./mod.ts";

function usage(message: string): never {
  console.error(`${message}\nUsage: deno task kvconnect [--path FILE] [--port N] [--token TOKEN]`);
  Deno.exit(2);
}

let values: { path?: string; port?: string; token?: string };
try {
  ({ values } = parseArgs({
    args: Deno.args,
    options: { path: { type: "string" }, port: { type: "string" }, token: { type: "string" } },
    strict: true,
  }));
} catch (error) {
  usage(error instanceof Error ? error.message : String(error));
}
const port = values.port === undefined ? 0 : Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  usage(`Cannot start the KV Connect server: '--port' must be an integer from 0 to 65535, got ${values.port}`);
}
const server = await startKvConnectServer({
  path: values.path ?? ":memory:",
  port,
  token: values.token ?? Deno.env.get("KV_CONNECT_TOKEN"),
});
console.log(`KV Connect server for ${values.path ?? ":memory:"} (test equipment, denokv's limits)`);
console.log(`url: ${server.url}`);
console.log(`token: ${server.token}`);
console.log(`use: DENO_KV_ACCESS_TOKEN=${server.token} and Deno.openKv("${server.url}")`);
const stop = async () => {
  await server.close();
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", stop);
Deno.addSignalListener("SIGTERM", stop);
