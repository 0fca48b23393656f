// A steady load of valid signed postbacks to one hook of a console, while a
// test acts as an operator: 16 senders at once, each postback with its own
// title and its own signing time (two postbacks signed in the same
// millisecond carry the same header, which the receiver takes as a copy).

import type { Community } from "../../webhooks/mod.ts";
import { signJiveExtn } from "../../webhooks/mod.ts";
import type { DeliveryStore } from "../../console/log/mod.ts";

/** What one postback of the load was answered. */
export interface Answer {
  title: string;
  status: number;
  body: string;
  /** Signed with the secret given as `previous` (see {@linkcode LoadOptions}). */
  previous: boolean;
  /** When it was sent (ms). */
  sent: number;
  /** When the answer came (ms). */
  at: number;
}

/** The load's target and how long it runs. */
export interface LoadOptions {
  callback: string;
  ref: string;
  community: Community;
  /** Sign every other postback with this secret instead of the community's current one. */
  previous?: string;
  /** Senders at once (16). */
  senders?: number;
  /** Until this settles, then a little longer (`tailMs`, 300). */
  until: Promise<unknown>;
  tailMs?: number;
  /** A prefix for the titles. */
  tag: string;
}

let clock = Date.now();
/** A signing time no other postback of this process used. */
function uniqueTime(): number {
  clock = Math.max(clock + 1, Date.now());
  return clock;
}

/** Sends postbacks until `until` settled (and `tailMs` more); resolves with every answer. */
export async function underLoad(options: LoadOptions): Promise<Answer[]> {
  const { callback, ref, community, tag } = options;
  const params = { clientId: community.clientId!, jiveUrl: community.baseUrl!, tenantId: community.tenantId };
  const answers: Answer[] = [];
  let done = false;
  options.until.finally(() => setTimeout(() => done = true, options.tailMs ?? 300));
  let n = 0;
  const sender = async () => {
    while (!done) {
      const title = `${tag}-${n++}`;
      const previous = options.previous !== undefined && n % 2 === 0;
      const secret = previous ? options.previous! : community.clientSecret as string;
      const authorization = await signJiveExtn({ ...params, timestamp: uniqueTime() }, secret);
      const body = JSON.stringify([{ webhook: ref, activity: { verb: "jive:created", title } }]);
      const sent = Date.now();
      const res = await fetch(callback, {
        method: "POST",
        headers: { authorization, "content-type": "application/json" },
        body,
        signal: AbortSignal.timeout(15_000),
      });
      answers.push({ title, status: res.status, body: await res.text(), previous, sent, at: Date.now() });
    }
  };
  await Promise.all(Array.from({ length: options.senders ?? 16 }, sender));
  return answers;
}

/** How many accepted deliveries of each title of `tag` the log holds. */
export async function storedTitles(deliveries: DeliveryStore, tag: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let after = 0;
  for (;;) {
    const page = await deliveries.list({ after, limit: 500, forward: true });
    if (page.length === 0) break;
    for (const row of page) {
      if (row.status === 200 && row.title.startsWith(`${tag}-`)) {
        counts.set(row.title, (counts.get(row.title) ?? 0) + 1);
      }
    }
    after = page[page.length - 1].seq;
  }
  return counts;
}

/** What went wrong with the answers against what the log holds: empty when all is well. */
export function lostOrDoubled(answers: Answer[], stored: Map<string, number>): string[] {
  const wrong: string[] = [];
  for (const a of answers) {
    const count = stored.get(a.title) ?? 0;
    if (a.status === 200 && a.body.includes('"received":1') && count !== 1) {
      wrong.push(`${a.title}: answered 200, stored ${count} times`);
    }
    if (a.status !== 200 && count !== 0) wrong.push(`${a.title}: answered ${a.status}, stored ${count} times`);
    if (a.status >= 500) wrong.push(`${a.title}: answered ${a.status} ${a.body.slice(0, 100)}`);
  }
  return wrong;
}

/** The answers' statuses, counted. */
export function tally(answers: Answer[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const a of answers) out[a.status] = (out[a.status] ?? 0) + 1;
  return out;
}

/** The CLI's entry point, which the operator tests run as a child on the console's KV file. */
export const CLI: string = new URL("../../webhooks/cli.ts", import.meta.url).pathname;

/** Runs the CLI on the KV file at `kvPath` with `args`, to its end: its status and what it said on stderr. */
export async function operatorCli(kvPath: string, ...args: string[]): Promise<{ code: number; stderr: string }> {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "--kv", kvPath, ...args],
    stdout: "null",
    stderr: "piped",
  }).output();
  return { code, stderr: new TextDecoder().decode(stderr) };
}
