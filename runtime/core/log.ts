// Structured log lines (one JSON object per line on stderr). Callers pass named fields, never whole
// requests or header maps, so credentials cannot reach the log by accident.

export type LogFields = Record<string, unknown>;

export interface GatewayLogger {
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

export function createJsonLogger(write: (line: string) => void = (line) => process.stderr.write(line)): GatewayLogger {
  const emit = (level: string, event: string, fields?: LogFields): void => {
    write(JSON.stringify({ time: new Date().toISOString(), level, event, ...fields }) + '\n');
  };
  return {
    info: (event, fields) => emit('info', event, fields),
    warn: (event, fields) => emit('warn', event, fields),
    error: (event, fields) => emit('error', event, fields),
  };
}

export const silentLogger: GatewayLogger = { info() {}, warn() {}, error() {} };

/** The parts of a thrown value worth logging: its class, message, code and stack. */
export function describeError(err: unknown): LogFields {
  if (!(err instanceof Error)) return { value: typeof err === 'string' ? err : typeof err };
  const code = (err as { code?: unknown }).code;
  return { name: err.name, message: err.message, ...(typeof code === 'string' ? { code } : {}), stack: err.stack };
}
