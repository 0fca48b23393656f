// What Module A's process-level tests share: the hook they register, the
// REGISTER child script (a real `deno run` process on a shared KV file) with
// its set-up and arguments, and short-hands for records and reconcile reports.

import assert from "node:assert/strict";
import type { Webhook, Webhooks } from "../../webhooks/mod.ts";
import { WEBHOOKS_MOD } from "./_child.ts";
import { type FileSetup, fileSetup } from "./_file_setup.ts";

export const EVENTS = ["document"];
export const OBJECT = "/places/1";
export const CALLBACK = "https://app.example/hooks/acme";

// Child: registers hooks through createWebhooks(kv) on the shared file and
// prints "registered <self ref>" after each. mode "exit" ends after `count`
// hooks; "hang" waits after one; "hang-before-request" gives register a fetch
// that prints "about-to-request" and never answers.
const REGISTER = `
import { createWebhooks } from ${JSON.stringify(WEBHOOKS_MOD)};
const { kvPath, mode, community, events, object, callback, count } = JSON.parse(Deno.args[0]);
const kv = await Deno.openKv(kvPath);
function hang() {
  setInterval(() => {}, 60_000);
  return new Promise(() => {});
}
const options = mode === "hang-before-request"
  ? { fetch: async () => { console.log("about-to-request"); return await hang(); } }
  : {};
const hooks = createWebhooks(kv, options);
for (let n = 0; n < (count ?? 1); n++) {
  const response = await hooks.register(community, events, object, count === undefined ? callback : callback + "/" + n);
  console.log("registered " + response.entity.resources.self.ref);
}
if (mode === "exit") {
  console.log("done");
  kv.close();
} else {
  await hang();
}
`;

/** The ids of records, sorted. */
export function ids(records: Webhook[]): string[] {
  return records.map((record) => record.id).sort();
}

/** The self URL of a record. */
export function refOf(record: Webhook): string {
  return record.entity.resources!.self!.ref!;
}

/** A KV file in a temp dir with the community of the sandbox platform saved in it, and the REGISTER script. */
export function registerSetup(): Promise<FileSetup> {
  return fileSetup("webhooks_processes_", "register.js", REGISTER);
}

export function registerArgs(setup: FileSetup, fields: Record<string, unknown>): string[] {
  return [JSON.stringify({
    kvPath: setup.kvPath,
    community: setup.community.name,
    events: EVENTS,
    object: OBJECT,
    callback: CALLBACK,
    ...fields,
  })];
}

export function assertNothingToDo(report: Awaited<ReturnType<Webhooks["reconcile"]>>, matched: string[]): void {
  assert.deepEqual(ids(report.matched), [...matched].sort());
  assert.deepEqual(report.orphans, []);
  assert.deepEqual(report.dangling, []);
  assert.deepEqual(report.abandoned, []);
}
