// `deno task test:kvconnect`: the project's suites a second time, with every
// `Deno.openKv` of the test process going through KV Connect (the test server
// of this folder, denokv's limits) by Deno's own remote client. The one list
// of what runs remotely, and why a suite is left out.
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));

/** Suites run over KV Connect. */
const SUITES = [
  // Module A: store, lookups, migrate(), register, reconcile.
  "tests/webhooks/webhooks_test.ts",
  "tests/webhooks/store/migrate_test.ts",
  "tests/webhooks/store/page_cursor_test.ts",
  "tests/webhooks/platform/register_*_test.ts",
  "tests/webhooks/platform/unregister_test.ts",
  "tests/webhooks/acceptance_test.ts",
  "tests/webhooks/acceptance_stub_test.ts",
  "tests/console/reconcile_test.ts",
  // The receiver, both modes, group commit included.
  "tests/webhooks/receiver/receiver*_test.ts",
  // The console smoke: a newcomer signs in, registers a hook, triggers an event and watches it arrive live
  // (Chromium); and the console's receiver mounted at /hooks/{id}.
  "tests/console/e2e_test.ts",
  "tests/console/hooks_test.ts",
  "tests/console/receiver_mount_test.ts",
  "tests/console/replay_test.ts",
  // The relay: destinations, write, workers, schedule, guard. (tests/webhooks/relay/processes_test.ts runs its
  // two-process case over its own KV Connect server already; its workers are child processes outside the preload.)
  "tests/webhooks/relay/relay_test.ts",
  "tests/webhooks/relay/schedule_test.ts",
  "tests/webhooks/relay/input_test.ts",
  "tests/webhooks/relay/receiver_relay_test.ts",
  "tests/webhooks/relay/take_test.ts",
  "tests/webhooks/relay/far_kv_test.ts",
  "tests/webhooks/relay/forwards_test.ts",
  // A removal's deletes in the shared outbox (a few hundred to a commit, within denokv's limits); calls at once from two
  // handles. (remove_kill_test.ts kills a child process, outside the preload.)
  "tests/webhooks/relay/remove_test.ts",
  "tests/webhooks/relay/races_test.ts",
  "tests/console/forwarding_test.ts",
  // The console's delivery store, its group commit included.
  "tests/console/log/delivery_faults_test.ts",
  "tests/console/log/delivery_limits_test.ts",
  "tests/console/log/delivery_queries_test.ts",
  "tests/console/log/delivery_request_details_test.ts",
  "tests/console/log/delivery_earlier_versions_test.ts",
  "tests/console/log/delivery_group_test.ts",
  // The live view's reads by commit stamp, late commits and clocks apart, over a remote KV's versionstamps.
  "tests/console/log/live_cost_test.ts",
  "tests/console/log/live_hook_test.ts",
  "tests/console/log/hook_index_late_test.ts",
  "tests/console/log/numbers_skew_test.ts",
];

/** Matched above but left out: they start their own KV Connect server for child processes already. */
const LEFT_OUT = new Set([
  // Two receiver processes on one KV file and on one KV Connect server, one killed under load.
  "tests/webhooks/receiver/receiver_kill_test.ts",
]);

const files: string[] = [];
for (const suite of SUITES) {
  if (!suite.includes("*")) {
    files.push(suite);
    continue;
  }
  const [dir, pattern] = [suite.slice(0, suite.lastIndexOf("/")), suite.slice(suite.lastIndexOf("/") + 1)];
  const match = new RegExp(`^${pattern.replaceAll(".", "\\.").replaceAll("*", ".*")}$`);
  for await (const entry of Deno.readDir(`${root}${dir}`)) {
    const file = `${dir}/${entry.name}`;
    if (entry.isFile && match.test(entry.name) && !LEFT_OUT.has(file)) files.push(file);
  }
}
files.sort();

const status = await new Deno.Command(Deno.execPath(), {
  args: ["test", "-A", "--parallel", "--preload", "kvconnect/preload.ts", ...files],
  cwd: root,
  env: { KV_CONNECT: "1", KV_CONNECT_TOKEN: crypto.randomUUID() },
  stdout: "inherit",
  stderr: "inherit",
}).spawn().status;
Deno.exit(status.code);
