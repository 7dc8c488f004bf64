// Byte helpers the container readers share.

/** Whether `file` holds the ASCII text `ascii` at `at`. */
export function startsWith(file: Buffer, at: number, ascii: string): boolean {
  if (at < 0 || at + ascii.length > file.length) return false;
  for (let i = 0; i < ascii.length; i++) if (file[at + i] !== ascii.charCodeAt(i)) return false;
  return true;
}
