// Where the prompt stage finds templates: the control plane's catalog, installed once the store is
// open. Routers are built before that (saved configs load first), so they hold this holder.
import type { CompiledTemplate } from './template.ts';

export interface PromptSource {
  /** A prompt ID, optionally `id@version`; null when no such prompt (version) is stored. */
  resolve(ref: string): CompiledTemplate | null;
}

export class PromptHolder implements PromptSource {
  #source: PromptSource | null = null;

  use(source: PromptSource): void {
    this.#source = source;
  }

  resolve(ref: string): CompiledTemplate | null {
    return this.#source?.resolve(ref) ?? null;
  }
}
