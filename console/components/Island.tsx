/**
 * Server side of the islands layer: wraps an island's server rendering in a
 * marker element that names the island and carries its props as JSON, for
 * `islands/_client.ts` to hydrate.
 *
 * @module
 */

import type { ComponentChildren, VNode } from "preact";

/** Props of {@linkcode Island}. */
export interface IslandProps {
  /** The island's name in `islands/_client.ts`. */
  name: string;
  /** Props passed to the island (JSON-serializable, no secrets). */
  props: unknown;
  /** The island rendered on the server with the same props. */
  children: ComponentChildren;
}

/** Marker element around a server-rendered island. */
export function Island({ name, props, children }: IslandProps): VNode {
  return (
    <div data-island={name} data-props={JSON.stringify(props)}>
      {children}
    </div>
  );
}
