// An atomic operation that passes each step on to another and keeps it, to
// pass the same steps on again later: the receiver gives it to `write`, so a
// postback decided afresh (a cached community or record changed meanwhile)
// adds the same writes again without a second call.

type Step = (op: Deno.AtomicOperation) => unknown;

/** Passes every step on to its target as it comes, and keeps it for {@linkcode AtomicTee.replay}. */
export class AtomicTee {
  #target: Deno.AtomicOperation;
  #steps: Step[] = [];

  constructor(target: Deno.AtomicOperation) {
    this.#target = target;
  }

  /** Takes the step on the target first: a step it refuses throws to the caller and is not kept. */
  #take(step: Step): this {
    step(this.#target);
    this.#steps.push(step);
    return this;
  }

  check(...checks: Deno.AtomicCheck[]): this {
    return this.#take((op) => op.check(...checks));
  }

  mutate(...mutations: Deno.KvMutation[]): this {
    return this.#take((op) => op.mutate(...mutations));
  }

  sum(key: Deno.KvKey, n: bigint): this {
    return this.#take((op) => op.sum(key, n));
  }

  min(key: Deno.KvKey, n: bigint): this {
    return this.#take((op) => op.min(key, n));
  }

  max(key: Deno.KvKey, n: bigint): this {
    return this.#take((op) => op.max(key, n));
  }

  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }): this {
    return this.#take((op) => op.set(key, value, options));
  }

  delete(key: Deno.KvKey): this {
    return this.#take((op) => op.delete(key));
  }

  enqueue(
    value: unknown,
    options?: { delay?: number; keysIfUndelivered?: Deno.KvKey[]; backoffSchedule?: number[] },
  ): this {
    return this.#take((op) => op.enqueue(value, options));
  }

  /** What the target answers (the receiver's recorder refuses: the receiver commits). */
  commit(): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    return this.#target.commit();
  }

  /** Takes every kept step on `op`, in order. */
  replay(op: Deno.AtomicOperation): void {
    for (const step of this.#steps) step(op);
  }
}
