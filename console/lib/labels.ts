/**
 * Names and descriptions people give their hooks, kept by the console (the
 * platform's entity has no such fields): one small KV entry per hook,
 * deleted with the hook.
 *
 * @module
 */

import { hookLabelKey } from "./kv_keys.ts";
import { retryLocked } from "./kv_retry.ts";

/** A hook's label. */
export interface HookLabel {
  /** A short name, up to 80 characters. */
  name: string;
  /** A description, up to 500 characters. */
  description: string;
}

/** Longest name and description. */
export const MAX_NAME = 80;
export const MAX_DESCRIPTION = 500;

/** Checks a label; the reason it is refused, or `null`. */
export function labelProblem(label: HookLabel): string | null {
  if (label.name.length > MAX_NAME) return `The name is ${label.name.length} characters; at most ${MAX_NAME}`;
  if (label.description.length > MAX_DESCRIPTION) {
    return `The description is ${label.description.length} characters; at most ${MAX_DESCRIPTION}`;
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(label.name)) return "The name may not hold control characters";
  return null;
}

/** Hook labels in KV. */
export class HookLabels {
  #kv: Deno.Kv;

  /** @param kv the console's KV */
  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** The label of a hook, or `null`. */
  async get(hookId: string): Promise<HookLabel | null> {
    return (await this.#kv.get<HookLabel>(hookLabelKey(hookId))).value;
  }

  /** The labels of many hooks, by hook id (those without one left out). */
  async many(hookIds: string[]): Promise<Map<string, HookLabel>> {
    const out = new Map<string, HookLabel>();
    for (let i = 0; i < hookIds.length; i += 10) {
      const ids = hookIds.slice(i, i + 10);
      const entries = await this.#kv.getMany<HookLabel[]>(ids.map(hookLabelKey));
      entries.forEach((e, j) => e.value && out.set(ids[j], e.value));
    }
    return out;
  }

  /** Saves a label (an empty one deletes it). */
  async set(hookId: string, label: HookLabel): Promise<void> {
    const key = hookLabelKey(hookId);
    if (label.name || label.description) await retryLocked(() => this.#kv.set(key, label));
    else await retryLocked(() => this.#kv.delete(key));
  }

  /** Deletes a hook's label. */
  async delete(hookId: string): Promise<void> {
    await retryLocked(() => this.#kv.delete(hookLabelKey(hookId)));
  }
}
