// `item_reference` input items: a client that stores its responses may name an earlier item by its
// ID instead of sending it again (the AI SDK does so for each earlier answer's message and reasoning).
// Each is replaced by the item it names, an input or output item of a response the gateway stored,
// so the conversation goes on as if the client had sent the item itself.
import { GatewayError } from '../../core/errors.ts';
import type { ResponseStore, StoredResponseRecord } from '../../store/response-store.ts';
import { notFound } from '../http.ts';
import type { ChatMessage } from './conversation.ts';
import { inputItemsOf } from './input-items.ts';
import { responseIdOfItem } from './item-ids.ts';

type Item = Record<string, unknown>;

function isReference(item: unknown): item is Item & { type: 'item_reference' } {
  return typeof item === 'object' && item !== null && (item as Item).type === 'item_reference';
}

/** Whether `input` names an item of a response the gateway made (its chain continues here, as previous_response_id's does). */
export function referencesGatewayItems(input: unknown): boolean {
  return Array.isArray(input) && input.some((item) => isReference(item) && typeof item.id === 'string' && responseIdOfItem(item.id) !== null);
}

/** `input` with every item reference replaced by the item it names; 404 for an item no stored response of the organisation holds. */
export async function withReferencedItems(input: unknown, responses: ResponseStore, organisationId: string): Promise<unknown> {
  if (!Array.isArray(input) || !input.some(isReference)) return input;
  const read = new Map<string, Promise<StoredResponseRecord | null>>();
  return Promise.all(input.map(async (item, i) => {
    if (!isReference(item)) return item;
    const id = item.id;
    if (typeof id !== 'string' || id === '') throw new GatewayError('invalid_request_body', `Invalid request body: /input/${i}/id must be the ID of an item.`, `/input/${i}/id`);
    const responseId = responseIdOfItem(id);
    if (responseId === null) throw notFound('item', id, `/input/${i}/id`);
    let stored = read.get(responseId);
    if (stored === undefined) read.set(responseId, (stored = responses.get(organisationId, responseId)));
    const found = itemOf(await stored, responseId, id);
    if (found === null) throw notFound('item', id, `/input/${i}/id`);
    return found;
  }));
}

function itemOf(stored: StoredResponseRecord | null, responseId: string, id: string): Item | null {
  if (stored === null) return null;
  const output = (stored.body as { output?: unknown }).output;
  const made = Array.isArray(output) ? (output as Item[]).find((item) => item?.id === id) : undefined;
  return made ?? inputItemsOf(responseId, stored.conversation as ChatMessage[]).find((item) => item.id === id) ?? null;
}
