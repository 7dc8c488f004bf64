// The IDs of an emulated response's items, input and output, made from the response's own ID and the
// item's place: the same on every read, and a client that names an item later (an `item_reference`,
// or `after` when listing input items) names the stored response that holds it too.
import { randomBytes } from 'node:crypto';

/** Makes an item's ID from its kind's prefix (`msg`, `fc`, `rs`, `fco`). */
export type ItemIds = (prefix: string) => string;

/** The part of a response ID its items' IDs carry (`resp_gw…` → `gw…`). */
function tagOf(responseId: string): string {
  return responseId.replace(/^resp_/, '');
}

/** The IDs of a stored response's input items, by their place in its conversation. */
export function inputItemId(responseId: string, prefix: string, place: number): string {
  return `${prefix}_${tagOf(responseId)}_${place}`;
}

/** The IDs of a response's output items, in the order they are made. */
export function outputItemIds(responseId: string): ItemIds {
  const tag = tagOf(responseId);
  let place = 0;
  return (prefix) => `${prefix}_${tag}_out${place++}`;
}

/** Random IDs, for output that is not a stored response's (the mock provider's). */
export const randomItemIds: ItemIds = (prefix) => `${prefix}_${randomBytes(16).toString('hex')}`;

const ITEM_OF_RESPONSE = /^[a-z]+_(gw[0-9a-f]{32})_(?:out)?\d+$/;

/** The ID of the emulated response an item's ID names; null when it names none (another provider's item). */
export function responseIdOfItem(itemId: string): string | null {
  const match = ITEM_OF_RESPONSE.exec(itemId);
  return match === null ? null : `resp_${match[1]}`;
}
