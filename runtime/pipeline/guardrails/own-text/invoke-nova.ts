// Amazon Nova's invoke on cloud C (which models: runtime/pipeline/metered-pass-through.ts) takes and
// answers converse's shapes, read as converse's are; its stream's `chunk` events each carry one
// converse-stream event as a one-member object (`{"contentBlockDelta": {…}}`).
import { converseText } from './converse.ts';
import { isObject, type Json, type OwnStreamReader, type OwnText, type Piece } from './own-text.ts';

/** The events of converse-stream, each a chunk's one member in Nova's invoke stream. */
const NOVA_EVENTS = ['messageStart', 'contentBlockStart', 'contentBlockDelta', 'contentBlockStop', 'messageStop', 'metadata'] as const;

class NovaStreamReader implements OwnStreamReader {
  readonly #converse = converseText.streamReader();

  read(event: Json): Piece[] {
    for (const type of NOVA_EVENTS) {
      const inner = event[type];
      if (isObject(inner)) return this.#converse.read(inner, type);
    }
    return [];
  }

  answer(): Json {
    return this.#converse.answer();
  }
}

export const novaText: OwnText = { ...converseText, streamReader: () => new NovaStreamReader() };
