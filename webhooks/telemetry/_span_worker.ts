// The span thread: makes the receiver's spans from the records the main
// thread hands over in batches (_span_thread.ts), through this thread's own
// `@opentelemetry/api`, which Deno wires to the same exporter as the main
// thread's. After each batch it counts it done in the shared counter, so that
// the main thread, at exit, knows which batches it must still make itself.

import { trace } from "@opentelemetry/api";
import { makeSpans, type SpanRecord } from "./_span_record.ts";
import { SCOPE } from "./_record.ts";

/** What the main thread sends: first the shared counter, then batches with their sequence numbers. */
export type ToSpanThread = { done: SharedArrayBuffer } | { seq: number; records: SpanRecord[] };

const tracer = trace.getTracer(SCOPE);
let done: Int32Array | undefined;

self.onmessage = (event: MessageEvent<ToSpanThread>) => {
  const message = event.data;
  if ("done" in message) {
    done = new Int32Array(message.done);
    return;
  }
  for (const record of message.records) {
    try {
      makeSpans(tracer, record);
    } catch {
      // One bad record never stops the rest.
    }
  }
  if (done !== undefined) {
    Atomics.store(done, 0, message.seq);
    Atomics.notify(done, 0);
  }
};
