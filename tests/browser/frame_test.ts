import assert from "node:assert/strict";
import { Window } from "happy-dom";
import { cancelFrame, onFrame, setDoc } from "../../browser/mod.ts";
import { domTest } from "./_dom.ts";

interface Raf {
  requestAnimationFrame(cb: (ts: number) => void): unknown;
}

function frames(n: number, win: Raf): Promise<void> {
  return new Promise((resolve) => {
    const step = () => (--n ? win.requestAnimationFrame(step) : resolve());
    win.requestAnimationFrame(step);
  });
}

domTest("onFrame() calls fn every frame with scope, args and the timestamp until cancelFrame()", async ({ win }) => {
  const calls: unknown[][] = [];
  const scope = { name: "s" };
  function tick(this: typeof scope, a: number, b: string, ts: number) {
    calls.push([this.name, a, b, typeof ts]);
  }
  onFrame(tick, scope, 1, "two");
  await frames(4, win);
  cancelFrame(tick);
  const count = calls.length;
  assert.equal(count >= 2, true);
  assert.deepEqual(calls[0], ["s", 1, "two", "number"]);
  await frames(3, win);
  assert.equal(calls.length, count);
});

domTest("onFrame() defaults scope to the window", async ({ win }) => {
  let self: unknown;
  const fn = function (this: unknown) {
    self = this;
    cancelFrame(fn);
  };
  onFrame(fn);
  await frames(2, win);
  assert.equal(self === win, true);
});

domTest("onFrame() listeners share one requestAnimationFrame loop, which stops with the last", async ({ win }) => {
  let requests = 0;
  const counted = win as unknown as Raf;
  const raf = counted.requestAnimationFrame.bind(win);
  counted.requestAnimationFrame = (cb) => {
    requests++;
    return raf(cb);
  };
  const a = () => {};
  const b = () => {};
  onFrame(a);
  onFrame(b);
  assert.equal(requests, 1); // one loop for both
  await frames(3, win);
  const perFrame = requests;
  cancelFrame(a);
  cancelFrame(b);
  const stopped = requests;
  await frames(3, win);
  assert.equal(requests - stopped, 3); // only frames() itself asked for frames
  assert.equal(perFrame >= 2, true);
});

domTest(
  "onFrame() again with the same fn replaces its arguments; cancelling an unknown fn does nothing",
  async ({ win }) => {
    const got: string[] = [];
    const fn = (label: string) => got.push(label);
    onFrame(fn, null, "old");
    onFrame(fn, null, "new");
    cancelFrame(() => {});
    await frames(2, win);
    cancelFrame(fn);
    assert.equal(got.length > 0, true);
    assert.equal(got.every((label) => label === "new"), true);
  },
);

domTest("cancelFrame() inside a listener stops only that listener", async ({ win }) => {
  let a = 0;
  let b = 0;
  const fa = () => {
    a++;
    cancelFrame(fa);
  };
  const fb = () => b++;
  onFrame(fa);
  onFrame(fb);
  await frames(4, win);
  cancelFrame(fb);
  assert.equal(a, 1);
  assert.equal(b >= 2, true);
});

domTest("onFrame() rejects a non-function with a TypeError", () => {
  assert.throws(() => onFrame("tick" as never), {
    name: "TypeError",
    message: `Expected 'fn' to be a function, got "tick"`,
  });
});

Deno.test("onFrame() moves the shared loop to the window of a document set later (the old one may be closed)", async () => {
  const first = new Window();
  setDoc(first.document as unknown as Document);
  const forgotten = () => {};
  onFrame(forgotten); // never cancelled before its window closes
  await first.happyDOM.close();
  const second = new Window();
  setDoc(second.document as unknown as Document);
  try {
    const got = await Promise.race([
      new Promise<string>((resolve) => {
        const fn = (label: string) => {
          cancelFrame(fn);
          resolve(label);
        };
        onFrame(fn, null, "called");
      }),
      frames(5, second as unknown as Raf).then(() => "never called"),
    ]);
    assert.equal(got, "called");
  } finally {
    cancelFrame(forgotten);
    await second.happyDOM.close();
  }
});

Deno.test("onFrame() without a window throws a TypeError and leaves later calls working", async () => {
  const closed = new Window();
  setDoc(closed.document as unknown as Document);
  await closed.happyDOM.close(); // its document has no window any more: Deno's globalThis has no frames
  const early = () => {};
  assert.throws(() => onFrame(early), TypeError);
  cancelFrame(early); // does nothing: it was never added
  const win = new Window();
  setDoc(win.document as unknown as Document);
  try {
    const got = await Promise.race([
      new Promise<string>((resolve) => {
        const fn = () => {
          cancelFrame(fn);
          resolve("called");
        };
        onFrame(fn);
      }),
      frames(5, win as unknown as Raf).then(() => "never called"),
    ]);
    assert.equal(got, "called");
  } finally {
    await win.happyDOM.close();
  }
});

Deno.test("onFrame() on a document without a window stops nothing: the running loop and its listeners go on", async () => {
  const win = new Window();
  const doc = win.document as unknown as Document;
  setDoc(doc);
  let a = 0;
  let b = 0;
  const fa = () => void a++;
  const fb = () => void b++;
  try {
    onFrame(fa);
    setDoc(doc.implementation.createHTMLDocument("no window"));
    assert.throws(() => onFrame(() => {}), TypeError);
    setDoc(doc);
    onFrame(fb);
    const before = a;
    await frames(5, win as unknown as Raf);
    assert.ok(a > before, "the first listener still runs");
    assert.ok(b > 0, "the later listener runs");
  } finally {
    cancelFrame(fa);
    cancelFrame(fb);
    await win.happyDOM.close();
  }
});
