// Files the gateway keeps for an organisation, within GATEWAY_FILE_STORAGE_MAX_BYTES: an upload, or
// a provider's file copied in to run a batch from, past it is 400 `file_storage_full`, as the vendor
// answers a full file storage (deleting files, not waiting, makes room); so is a gateway-managed batch
// while the files fill it, since its results will be kept as files.
import { GatewayError } from '../../core/errors.ts';
import { FileStorageFull, type GatewayFileRecord, type GatewayFileStore, type NewGatewayFile } from '../../store/file-store.ts';

/** Stores `input` within `maxStoredBytes`; `what` names it in the refusal ("this one"), `param` is the error's. */
export function keepFile(files: GatewayFileStore, input: NewGatewayFile, maxStoredBytes: number, what: string, param: string): Promise<GatewayFileRecord> {
  return files.create(input, maxStoredBytes).catch((error: unknown) => {
    if (error instanceof FileStorageFull) throw fileStorageFull(error.storedBytes, error.maxStoredBytes, `${what} has ${input.content.length}`, param);
    throw error;
  });
}

/** `adding`: what the organisation asked to keep, in words ("this one has 1097"). */
export function fileStorageFull(storedBytes: number, maxStoredBytes: number, adding: string, param: string): GatewayError {
  return new GatewayError(
    'file_storage_full',
    `The gateway keeps at most ${maxStoredBytes} bytes of files per organisation (GATEWAY_FILE_STORAGE_MAX_BYTES); your organisation's files take ${storedBytes}, and ${adding}. Delete files you no longer need (DELETE /v1/files/{file_id}).`,
    param,
  );
}
