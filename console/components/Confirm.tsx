/**
 * The confirmation step of a destructive action: a page that says what will
 * happen and posts the same form again with `confirm=yes`. It works without
 * JavaScript; the action runs only when the request carries the
 * confirmation.
 *
 * @module
 */

import type { ComponentChildren, VNode } from "preact";
import { Csrf } from "./Csrf.tsx";

/** Props of {@linkcode Confirm}. */
export interface ConfirmProps {
  /** Where the confirmed form posts. */
  action: string;
  /** The session's CSRF token. */
  csrf: string;
  /** The button's label, e.g. "Unregister". */
  label: string;
  /** Where "Cancel" leads. */
  cancel: string;
  /** Other fields to post again. */
  fields?: Record<string, string>;
  /** What will happen. */
  children: ComponentChildren;
}

/** Whether a form post carries the confirmation. */
export function confirmed(body: Record<string, unknown>): boolean {
  return body.confirm === "yes";
}

/** The confirmation form. */
export function Confirm(props: ConfirmProps): VNode {
  return (
    <form method="post" action={props.action} id="confirm" class="danger">
      <Csrf token={props.csrf} />
      <input type="hidden" name="confirm" value="yes" />
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} key={name} />
      ))}
      {
        /* What will happen has focus (no script needed), as an action's notice does: it is read out, and the next Tab
          is the button, then Cancel. */
      }
      <div id="confirm-question" tabIndex={-1} autoFocus>
        {props.children}
      </div>
      <p>
        <button type="submit" class="danger" id="confirm-button">{props.label}</button>{" "}
        <a href={props.cancel}>Cancel</a>
      </p>
    </form>
  );
}
