/**
 * Island: the events checklist of the register form. System events and
 * content events cannot be mixed; in the browser, checking one kind greys
 * out the other (and the `object` field for system events) with Library
 * B's class helpers. Without JavaScript nothing is greyed out: the server
 * checks the same rule.
 *
 * @module
 */

import { useEffect, useRef, useState } from "preact/hooks";
import type { VNode } from "preact";
import { addClass, delClass } from "../../browser/mod.ts";
import { fieldError } from "../components/field_error.ts";
/** Props of {@linkcode EventPicker}. */
export interface EventPickerProps {
  /** Events checked initially. */
  selected: string[];
  /** The object (place URI) typed so far. */
  object: string;
  /** The content events (Module A's `CONTENT_EVENTS`, passed in so that the island bundle holds no Module A). */
  content: readonly string[];
  /** The system events (Module A's `SYSTEM_EVENTS`). */
  system: readonly string[];
  /** What the form was refused for, marked invalid and described by the page's error: the events or the object. */
  fault?: "events" | "object";
}

/** Events checklist plus the object field. */
export default function EventPicker(props: EventPickerProps): VNode {
  const [selected, setSelected] = useState<string[]>(props.selected);
  // The object typed is state of its own: a render (ticking an event) keeps it.
  const [object, setObject] = useState<string>(props.object);
  const { content: CONTENT_EVENTS, system: SYSTEM_EVENTS } = props;
  const systemBox = useRef<HTMLFieldSetElement>(null);
  const contentBox = useRef<HTMLFieldSetElement>(null);
  // Greying out needs the island running: without JavaScript a greyed-out box could not be ticked when its kind is
  // the one wanted, nor the other kind unticked first (the server checks the rule instead).
  const [running, setRunning] = useState(false);
  useEffect(() => setRunning(true), []);
  const anySystem = selected.some((e) => SYSTEM_EVENTS.includes(e));
  const anyContent = selected.some((e) => CONTENT_EVENTS.includes(e));
  // One kind chosen greys out the other. A form that comes back refused with both kinds ticked greys out neither: a
  // disabled box can be neither unticked nor sent, so the user could only start over.
  const hasSystem = running && anySystem && !anyContent;
  const hasContent = running && anyContent && !anySystem;

  useEffect(() => {
    if (!systemBox.current || !contentBox.current) return;
    if (hasContent) addClass(systemBox.current, "muted");
    else delClass(systemBox.current, "muted");
    if (hasSystem) addClass(contentBox.current, "muted");
    else delClass(contentBox.current, "muted");
  }, [hasSystem, hasContent]);

  const toggle = (event: string, on: boolean) =>
    setSelected((old) => on ? [...old.filter((e) => e !== event), event] : old.filter((e) => e !== event));

  const box = (event: string, disabled: boolean) => (
    <label class="check" key={event}>
      <input
        type="checkbox"
        name="events"
        value={event}
        id={`event-${event}`}
        checked={selected.includes(event)}
        disabled={disabled}
        {...fieldError(props.fault === "events")}
        onChange={(e) => toggle(event, e.currentTarget.checked)}
      />{" "}
      {event}
    </label>
  );

  return (
    <div class="event-picker">
      <fieldset ref={contentBox} id="content-events">
        <legend>Content events (need an object)</legend>
        {CONTENT_EVENTS.map((e) => box(e, hasSystem))}
      </fieldset>
      <fieldset ref={systemBox} id="system-events">
        <legend>System events (no object)</legend>
        {SYSTEM_EVENTS.map((e) => box(e, hasContent))}
      </fieldset>
      <label>
        Object (place URI, for content events)
        <input
          type="text"
          name="object"
          id="object"
          value={object}
          onInput={(e) => setObject(e.currentTarget.value)}
          disabled={hasSystem}
          {...fieldError(props.fault === "object")}
          placeholder="https://community.example.com/api/core/v3/places/1000"
        />
      </label>
    </div>
  );
}
