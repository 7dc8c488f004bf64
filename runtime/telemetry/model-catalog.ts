// The model catalog (runtime/telemetry/model-catalog.json, or GATEWAY_MODEL_CATALOG): context windows that
// Responses emulation judges `truncation` by, and prices per million tokens: the pricing table the
// request log's cost comes from (GATEWAY_PRICING_FILE adds or replaces models over it). Checked against
// schema/resources/model-catalog.json when loaded; a catalog that breaks it stops the start.
import { readFileSync } from 'node:fs';
import { repoFileText } from '../../compiler/config/embedded-files.ts';
import * as validators from '../../generated/validators.js';
import type { CatalogModel, ImagePrices, ModelCatalog as ModelCatalogData } from '../../generated/types.ts';
import { describeFirstError, type GeneratedValidator } from '../core/validate.ts';
import type { TokenUsage } from '../core/request-record.ts';
import { jsonErrorDetail } from '../../compiler/config/json-syntax-error.ts';
import { withoutByteOrderMark } from '../../compiler/config/json-locate.ts';

const validateCatalog = validators.validateModelCatalog as unknown as GeneratedValidator;
export const BUILT_IN_CATALOG = new URL('./model-catalog.json', import.meta.url);
/** `-2024-08-06`, `-20250219`, `@20250219` (cloud B names a Claude version so): the date suffix of a pinned model version. */
const DATED = /[-@](\d{4}-\d{2}-\d{2}|\d{8})$/;

/**
 * The catalog's JSON: the repository's file when built in (embedded in a one-file build), else the
 * file at `path`, which `variable` named; its errors name both, since they stop a start.
 */
function catalogData(path: string | URL, variable: string): unknown {
  if (String(path) === String(BUILT_IN_CATALOG)) return JSON.parse(repoFileText('runtime/telemetry/model-catalog.json'));
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`${variable} ${String(path)}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  text = withoutByteOrderMark(text);
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${variable} ${String(path)} is not valid JSON${jsonErrorDetail(text)}`);
  }
}

/** What pricing reads of a usage: all of it but the total and whether it was estimated. */
export type PricedUsage = Omit<TokenUsage, 'totalTokens' | 'estimated'>;

export class ModelCatalog {
  readonly #byName = new Map<string, CatalogModel>();

  constructor(data: unknown, source = 'model catalog') {
    if (!validateCatalog(data)) {
      const { pointer, message } = describeFirstError(validateCatalog.errors);
      throw new Error(`${source} is not valid at ${pointer || '/'}: ${message}`);
    }
    for (const model of (data as ModelCatalogData).models) {
      const images = model.pricing.per_image;
      if (images !== undefined && !Object.hasOwn(images.usd, images.default_quality)) {
        throw new Error(`${source}: the model ${JSON.stringify(model.id)} has the default_quality ${JSON.stringify(images.default_quality)}, which its per_image usd does not price`);
      }
      for (const name of [model.id, ...(model.aliases ?? [])]) {
        if (this.#byName.has(name)) throw new Error(`${source} names the model ${JSON.stringify(name)} twice`);
        this.#byName.set(name, model);
      }
    }
  }

  static load(path: string | URL = BUILT_IN_CATALOG): ModelCatalog {
    return new ModelCatalog(catalogData(path, 'GATEWAY_MODEL_CATALOG'), String(path));
  }

  /**
   * The catalog at `path` with the models of `overlay` (same schema) added over it: a model of the
   * overlay replaces the one with its ID (and that model's aliases). For GATEWAY_PRICING_FILE.
   */
  static loadWithOverlay(path: string | URL, overlay: string | null): ModelCatalog {
    const base = catalogData(path, 'GATEWAY_MODEL_CATALOG') as ModelCatalogData;
    if (overlay === null) return new ModelCatalog(base, String(path));
    const extra = catalogData(overlay, 'GATEWAY_PRICING_FILE') as ModelCatalogData;
    if (!validateCatalog(extra)) {
      const { pointer, message } = describeFirstError(validateCatalog.errors);
      throw new Error(`GATEWAY_PRICING_FILE ${overlay} is not valid at ${pointer || '/'}: ${message}`);
    }
    const replaced = new Set(extra.models.map((model) => model.id));
    return new ModelCatalog({ ...base, models: [...base.models.filter((model) => !replaced.has(model.id)), ...extra.models] }, `${String(path)} with ${overlay}`);
  }

  /** The model by ID or alias, or by the name without a date suffix; undefined when unknown. */
  find(model: string): CatalogModel | undefined {
    return this.#byName.get(model) ?? this.#byName.get(model.replace(DATED, ''));
  }

  /** Cost in USD of a usage, or null for a model the catalog does not price. */
  cost(model: string, usage: PricedUsage): number | null {
    const pricing = this.find(model)?.pricing;
    if (pricing === undefined) return null;
    // Reads, writes (and the hour-long writes among them), audio and images are parts of the input,
    // audio a part of the output, each priced as such; a count past what holds it (an odd answer) is
    // capped rather than priced twice.
    const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
    const cachedAudio = Math.min(usage.cachedAudioInputTokens ?? 0, cached);
    const written = Math.min(usage.cacheCreationInputTokens ?? 0, usage.inputTokens - cached);
    const hour = Math.min(usage.cacheCreation1hInputTokens ?? 0, written);
    const audioIn = Math.min(usage.audioInputTokens ?? 0, usage.inputTokens - cached - written);
    const imageIn = Math.min(usage.imageInputTokens ?? 0, usage.inputTokens - cached - written - audioIn);
    const audioOut = Math.min(usage.audioOutputTokens ?? 0, usage.outputTokens);
    const cachedPrice = pricing.cached_input_per_million ?? pricing.input_per_million;
    const cachedAudioPrice = pricing.cached_audio_input_per_million ?? cachedPrice;
    const writePrice = pricing.cache_creation_input_per_million ?? pricing.input_per_million;
    const hourPrice = pricing.cache_creation_1h_input_per_million ?? writePrice;
    const input = (usage.inputTokens - cached - written - audioIn - imageIn) * pricing.input_per_million + (cached - cachedAudio) * cachedPrice + cachedAudio * cachedAudioPrice + (written - hour) * writePrice + hour * hourPrice +
      audioIn * (pricing.audio_input_per_million ?? pricing.input_per_million) + imageIn * (pricing.image_input_per_million ?? pricing.input_per_million);
    const output = (usage.outputTokens - audioOut) * pricing.output_per_million + audioOut * (pricing.audio_output_per_million ?? pricing.output_per_million);
    // Audio billed by its length (whisper): a model without a price per minute is not priced for it.
    const seconds = usage.audioSeconds ?? 0;
    if (seconds > 0 && pricing.audio_input_per_minute === undefined) return null;
    // Images billed per image (DALL·E): a model without that price is not priced for them.
    const images = usage.images ?? 0;
    const imagePrice = images > 0 ? priceOfImage(pricing.per_image, usage.imageSize ?? null, usage.imageQuality ?? null) : 0;
    if (imagePrice === null) return null;
    // Speech answered as audio: by its characters (tts-1) or its length (gpt-4o-mini-tts), whichever
    // the model has a price for; a model with neither is not priced for it. Characters counted beside
    // tokens (cloud B's embeddings answer counts both) leave a model priced by its tokens priced so.
    const characters = usage.inputCharacters ?? 0;
    const spoken = usage.audioOutputSeconds ?? 0;
    const characterPrice = pricing.input_per_million_characters;
    const minutePrice = pricing.audio_output_per_minute;
    const charactersAlone = characters > 0 && usage.inputTokens === 0;
    if ((charactersAlone || spoken > 0) && characterPrice === undefined && (minutePrice === undefined || spoken === 0)) return null;
    // A model billed by the character alone (no token price: tts-1, cloud B's older text embedding
    // models) is not priced for an answer that counted tokens and no characters: its tokens would
    // price it at 0 (an embedding answer without its metadata, or under strict vendor compliance).
    if (characterPrice !== undefined && pricing.input_per_million === 0 && usage.inputCharacters === undefined && usage.inputTokens > 0) return null;
    return (input + output + characters * (characterPrice ?? 0)) / 1_000_000 + (seconds / 60) * (pricing.audio_input_per_minute ?? 0) + (spoken / 60) * (minutePrice ?? 0) + images * imagePrice;
  }

  /** Whether the model's speech answered as audio is priced by its length (its audio_output_per_minute). */
  pricesSpokenMinutes(model: string): boolean {
    return this.find(model)?.pricing.audio_output_per_minute !== undefined;
  }
}

/**
 * USD for one image of `size` and `quality` (null: the model's default), or null when the table does
 * not price it. A model with one quality (dall-e-2) has it whatever the request names. Own keys only:
 * the size and quality come from the client.
 */
function priceOfImage(prices: ImagePrices | undefined, size: string | null, quality: string | null): number | null {
  if (prices === undefined) return null;
  const qualities = Object.keys(prices.usd);
  const chosen = qualities.length === 1 ? qualities[0] : quality ?? prices.default_quality;
  if (!Object.hasOwn(prices.usd, chosen)) return null;
  const bySize = prices.usd[chosen];
  const sized = size ?? prices.default_size;
  return Object.hasOwn(bySize, sized) ? bySize[sized] : null;
}
