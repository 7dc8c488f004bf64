// A protocol-faithful mock of the first-party vendor API (OpenAI-compatible wire protocol).
export { startVendorMock, VENDOR_MOCK_KEY, DEFAULT_MODELS } from './server.ts';
export { vendorError } from './vendor-errors.ts';
export { speechBytes } from './audio.ts';
export { BAG_OF_WORDS_MODEL, embeddingOf } from './embeddings.ts';
export { bagOfWordsOf } from '../../../runtime/cli/bag-of-words.ts';
export type { RecordedRequest, RequestOutcome, ScriptStep, VendorErrorFields, VendorMock, VendorMockOptions } from './types.ts';
