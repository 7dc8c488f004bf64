// The semantic cache (ARCHITECTURE §5 "Cache"): a request's text is embedded through the embeddings
// route the server is set up with, and matched by cosine similarity against the vectors of earlier
// answers in the same key scope. Vectors live in this process's index; with Redis, every vector a
// process stores is published and every process adds it to its own index, so an answer stored by
// one process is a semantic hit in all (runtime/pipeline/cache/semantic-feed.ts).
import type { Exchange } from '../exchange.ts';
import type { SemanticIndex, SemanticMatch, SemanticVector } from './semantic-index.ts';

export type { SemanticVector };

/** Embeds one text through the server's embeddings route; null when that call failed (never throws). */
export type Embedder = (text: string, x: Exchange) => Promise<Float32Array | null>;

/** Tells the other processes of a vector this one stored. */
export interface SemanticPublisher {
  publish(entry: SemanticVector): void;
}

export class SemanticCache {
  readonly index: SemanticIndex;
  readonly embed: Embedder;
  /** Cosine similarity a match needs (GATEWAY_SEMANTIC_CACHE_THRESHOLD). */
  readonly threshold: number;
  #publisher: SemanticPublisher | null = null;

  constructor(index: SemanticIndex, embed: Embedder, threshold: number) {
    this.index = index;
    this.embed = embed;
    this.threshold = threshold;
  }

  publishTo(publisher: SemanticPublisher): void {
    this.#publisher = publisher;
  }

  /** The nearest earlier answer at or above the threshold. */
  async match(scope: string, vector: Float32Array): Promise<SemanticMatch | null> {
    const nearest = await this.index.nearest(scope, vector);
    return nearest !== null && nearest.similarity >= this.threshold ? nearest : null;
  }

  remember(entry: SemanticVector): void {
    this.index.add(entry.scope, entry.vector, entry.entryKey, entry.expiresAt);
    this.#publisher?.publish(entry);
  }
}
