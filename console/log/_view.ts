/**
 * The summary of one delivery as the log stores it and the pages show it:
 * the data type the store, the routes and the islands share, so the store
 * imports no view.
 *
 * @module
 */

/** One delivery as the page shows it (no secrets). */
export interface DeliveryView {
  /** Place in the delivery sequence, which is commit order (1, 2, ...). */
  seq: number;
  /** Delivery id: its postback's id and its index there. */
  id: string;
  /** The webhook record id it was delivered to. */
  hookId: string;
  /** When it arrived (ISO 8601). */
  receivedAt: string;
  /** The activity's verb, e.g. `jive:created`. */
  verb: string;
  /** The activity's title or object summary. */
  title: string;
  /** The platform's webhook URL from the postback. */
  webhook: string;
  /** Our answer's HTTP status: 200 for an accepted delivery, else the rejection's. */
  status: number;
  /** Why a request was rejected (or that it was a duplicate). */
  reason?: string;
  /** The postback the delivery was part of. */
  postbackId?: string;
  /** The community's tenant id (of a rejected attempt: as its header claimed). */
  tenantId?: string;
  /** Sent again by the console's "Replay to receiver", not by the platform. */
  replay?: boolean;
}
