/**
 * The field a refused form is about: marked `aria-invalid` and described by
 * the page's error message (the Layout's `#page-error`), so that a screen
 * reader says, on that very field, that it is wrong and why.
 *
 * @module
 */

/** The id of the page's error message (the Layout's). */
export const PAGE_ERROR_ID = "page-error";

/** The attributes to spread on a field: the marks when `faulty`, else none. */
export function fieldError(faulty: boolean): { "aria-invalid"?: "true"; "aria-describedby"?: string } {
  return faulty ? { "aria-invalid": "true", "aria-describedby": PAGE_ERROR_ID } : {};
}
