// Prompt templates with versions. A prompt's template is its messages (mustache text), an optional
// model and hyperparameters; every update adds a version, and versions count up from 1 without gaps
// even when several processes update one prompt at once.
import type { Page, PageRequest } from './page.ts';

export interface PromptMessage {
  role: string;
  /** Mustache template text. */
  content: string;
  name?: string;
}

export interface PromptTemplate {
  messages: PromptMessage[];
  model: string | null;
  /** Chat-completion parameters (temperature, max_tokens, …) that render puts at the root of `data`. */
  hyperparameters: Record<string, unknown>;
}

export interface PromptVersion {
  version: number;
  template: PromptTemplate;
  description: string | null;
  createdAt: string;
}

/** A prompt as of one version (the latest unless asked otherwise). */
export interface PromptRecord {
  id: string;
  name: string;
  /** The version this record shows. */
  version: number;
  latestVersion: number;
  template: PromptTemplate;
  versionDescription: string | null;
  createdAt: string;
  lastUpdatedAt: string;
}

export interface PromptStore {
  /** Version 1. Throws UniqueViolationError when the ID is taken. */
  create(input: { id: string; name: string; template: PromptTemplate; description: string | null }): Promise<PromptRecord>;
  /** The latest version, or `version`; null when the prompt or that version does not exist. */
  get(id: string, version?: number): Promise<PromptRecord | null>;
  /** Latest versions, oldest prompt first. */
  list(page: PageRequest): Promise<Page<PromptRecord>>;
  /** Every version, oldest first; null when the prompt does not exist. */
  versions(id: string): Promise<PromptVersion[] | null>;
  /** Adds the next version (and renames, when `name` is given); null when the prompt does not exist. */
  addVersion(id: string, input: { name?: string; template: PromptTemplate; description: string | null }): Promise<PromptRecord | null>;
  delete(id: string): Promise<boolean>;
}
