// Every error the gateway itself returns, declared once. Codes are stable and never reused;
// docs/errors.md lists each one and test/errors-doc.test.ts keeps the two in step.
// The table lives in compiler/config so the generated client can type its errors' codes from it.
import { GATEWAY_ERRORS, type GatewayErrorCode, type GatewayErrorSpec } from '../../compiler/config/gateway-errors.ts';

export { GATEWAY_ERRORS, type GatewayErrorCode, type GatewayErrorSpec };

export interface GatewayErrorBody {
  error: { message: string; type: string; param: string | null; code: GatewayErrorCode };
}

export class GatewayError extends Error {
  readonly code: GatewayErrorCode;
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  /** Extra fields merged into the `error` object (e.g. config errors). */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: GatewayErrorCode, message?: string, param: string | null = null, details?: Record<string, unknown>) {
    const spec: GatewayErrorSpec = GATEWAY_ERRORS[code];
    super(message ?? spec.message);
    this.code = code;
    this.status = spec.status;
    this.type = spec.type;
    this.param = param;
    this.details = details;
  }

  toBody(): GatewayErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code, ...this.details } };
  }
}
