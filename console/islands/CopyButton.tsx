/**
 * Island: a button that copies the text of an element (the raw body on a
 * delivery's page) to the clipboard. Without JavaScript it is not shown.
 *
 * @module
 */

import { useEffect, useState } from "preact/hooks";
import type { VNode } from "preact";
import { byId } from "../../browser/mod.ts";

/** Props of {@linkcode CopyButton}. */
export interface CopyButtonProps {
  /** The id of the element whose text is copied. */
  target: string;
  /** The button's label. */
  label: string;
}

/** What the live region says of each outcome; the leading space parts it from the button's label. */
const SAID = { copied: " Copied.", failed: " Could not copy: select the text instead." };

/** A copy-to-clipboard button, shown once hydrated. */
export default function CopyButton(props: CopyButtonProps): VNode {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  // Each outcome is a new node of the live region: a screen reader reads what is added, so a second Copy that
  // ends as the first did is said again (the same text left in place was not).
  const [times, setTimes] = useState(0);
  const [ready, setReady] = useState(false);
  useEffect(() => setReady("clipboard" in navigator), []);
  const copy = () => {
    const text = byId(props.target)?.textContent ?? "";
    const said = (outcome: "copied" | "failed") => {
      setState(outcome);
      setTimes((n) => n + 1);
    };
    navigator.clipboard.writeText(text).then(() => said("copied"), () => said("failed"));
  };
  return (
    <span class="copy">
      <button type="button" hidden={!ready} onClick={copy}>{props.label}</button>
      {/* Only the outcome is live: the button shown as the script starts would be read out on every load. */}
      <span aria-live="polite">
        {state === "copied" && <span key={times}>{SAID.copied}</span>}
        {state === "failed" && <span key={times}>{SAID.failed}</span>}
      </span>
    </span>
  );
}
