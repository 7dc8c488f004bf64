// The answer to an organisation whose files would take more than GATEWAY_FILE_STORAGE_MAX_BYTES: an
// upload, a provider's file copied in to run a batch from, or a batch whose results would be kept
// as files. 400, as the vendor answers a full file storage: deleting files, not waiting, makes room.
import { GatewayError } from '../../core/errors.ts';

/** `adding`: what the organisation asked to keep, in words ("this file has 1097 bytes"). */
export function fileStorageFull(storedBytes: number, maxStoredBytes: number, adding: string, param: string): GatewayError {
  return new GatewayError(
    'file_storage_full',
    `The gateway keeps at most ${maxStoredBytes} bytes of files per organisation (GATEWAY_FILE_STORAGE_MAX_BYTES); your organisation's files take ${storedBytes}, and ${adding}. Delete files you no longer need (DELETE /v1/files/{file_id}).`,
    param,
  );
}
