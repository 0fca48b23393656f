/**
 * A table of HTTP headers, name and value, as a delivery's page shows the
 * request's and the answer's (values kept well-formed text).
 *
 * @module
 */

import type { VNode } from "preact";
import { wellFormed } from "./text.ts";

/** Props of {@linkcode HeadersTable}. */
export interface HeadersTableProps {
  /** The table's id. */
  id: string;
  /** The headers, by name. */
  headers: Record<string, string>;
}

/** The headers as a two-column table. */
export function HeadersTable({ id, headers }: HeadersTableProps): VNode {
  return (
    <table id={id}>
      <thead>
        <tr>
          <th scope="col">Header</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {Object.entries(headers).map(([name, value]) => (
          <tr key={name}>
            <td data-label="Header">{name}</td>
            <td data-label="Value" class="id">{wellFormed(value)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
