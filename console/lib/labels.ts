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

/**
 * The bidirectional control characters (embeddings, overrides, isolates and
 * marks): in a name they can make text read as something else, as U+202E
 * (RIGHT-TO-LEFT OVERRIDE) turns `txt.exe` around.
 */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The bidirectional control characters in `text`, named as code points
 * (`U+202E`), each once; empty when there are none.
 *
 * @example Usage
 * ```ts
 * import { bidiControls } from "./labels.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(bidiControls("abc\u202Etxt.exe"), ["U+202E"]);
 * assert.deepEqual(bidiControls("plain"), []);
 * ```
 */
export function bidiControls(text: string): string[] {
  const found = new Set<string>();
  for (const [ch] of text.matchAll(BIDI_CONTROLS)) {
    found.add(`U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`);
  }
  return [...found];
}

/** `text` without its bidirectional control characters. */
export function withoutBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, "");
}

/** Why a label is refused, and the values to show in the form again. */
export interface LabelProblem {
  /** What is wrong, in a sentence without a final period. */
  message: string;
  /** The values to put back into the form: as typed, less the characters that cannot be kept. */
  keep: HookLabel;
  /** The fields the refusal is about, to be marked invalid. */
  fields: (keyof HookLabel)[];
}

/**
 * Checks a label: the reason it is refused (with the values to show again),
 * or `null`.
 */
export function labelProblem(label: HookLabel): LabelProblem | null {
  const bidi = bidiControls(label.name + label.description);
  if (bidi.length > 0) {
    return {
      message: `The name and description may not hold bidirectional control characters (${
        bidi.join(", ")
      }): they can make text read as something else. They are removed below; save again to keep the rest`,
      keep: { name: withoutBidiControls(label.name), description: withoutBidiControls(label.description) },
      fields: (["name", "description"] as const).filter((f) => bidiControls(label[f]).length > 0),
    };
  }
  const refuse = (field: keyof HookLabel, message: string) => ({ message, keep: label, fields: [field] });
  if (label.name.length > MAX_NAME) {
    return refuse("name", `The name is ${label.name.length} characters; at most ${MAX_NAME}`);
  }
  if (label.description.length > MAX_DESCRIPTION) {
    return refuse(
      "description",
      `The description is ${label.description.length} characters; at most ${MAX_DESCRIPTION}`,
    );
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(label.name)) return refuse("name", "The name may not hold control characters");
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
    // Ten keys a read (KV Connect's limit), the reads at once: a page naming a thousand hooks waits for one round
    // trip, not a hundred in turn.
    const chunks: string[][] = [];
    for (let i = 0; i < hookIds.length; i += 10) chunks.push(hookIds.slice(i, i + 10));
    const read = await Promise.all(chunks.map((ids) => this.#kv.getMany<HookLabel[]>(ids.map(hookLabelKey))));
    read.forEach((entries, i) => entries.forEach((e, j) => e.value && out.set(chunks[i][j], e.value)));
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
