// onFrame()/cancelFrame() while the tab is hidden: a window whose frames stop (as a browser stops them for a hidden
// tab) and then come again. Listeners added or cancelled meanwhile take effect when the frames resume; the loop
// books one frame at a time, never a pile of them.
import assert from "node:assert/strict";
import { Window } from "happy-dom";
import { cancelFrame, onFrame, setDoc } from "../../browser/mod.ts";

/** A happy-dom window whose frames run only when `show()` delivers them, one at a time. */
function hiddenWindow() {
  const win = new Window();
  const queue = new Map<number, (ts: number) => void>();
  let next = 0;
  Object.assign(win, {
    requestAnimationFrame: (cb: (ts: number) => void) => (queue.set(++next, cb), next),
    cancelAnimationFrame: (id: number) => queue.delete(id),
  });
  setDoc(win.document as unknown as Document);
  return {
    win,
    pending: () => queue.size,
    /** Runs the frames booked so far (one frame), as a browser does when the tab shows again. */
    frame(ts: number) {
      const due = [...queue.values()];
      queue.clear();
      for (const cb of due) cb(ts);
    },
  };
}

Deno.test("onFrame() on a hidden tab: no frame runs; changes made meanwhile apply when frames come again", async () => {
  const tab = hiddenWindow();
  const seen: string[] = [];
  const a = (ts: number) => seen.push(`a ${ts}`);
  const b = (ts: number) => seen.push(`b ${ts}`);
  const c = (ts: number) => seen.push(`c ${ts}`);
  try {
    onFrame(a);
    onFrame(b);
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(seen, []);
    assert.equal(tab.pending(), 1);
    cancelFrame(b);
    onFrame(c);
    cancelFrame(a);
    assert.equal(tab.pending(), 1);
    tab.frame(1);
    assert.deepEqual(seen, ["c 1"]);
    assert.equal(tab.pending(), 1);
    cancelFrame(c);
    assert.equal(tab.pending(), 0);
    tab.frame(2);
    assert.deepEqual(seen, ["c 1"]);
    // all cancelled while hidden, then one added: a single frame is booked again
    onFrame(a);
    cancelFrame(a);
    onFrame(b);
    assert.equal(tab.pending(), 1);
    tab.frame(3);
    assert.deepEqual(seen, ["c 1", "b 3"]);
  } finally {
    cancelFrame(a);
    cancelFrame(b);
    cancelFrame(c);
    await tab.win.happyDOM.close();
  }
});
