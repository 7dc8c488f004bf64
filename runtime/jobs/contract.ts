// Provider answers checked against the gateway's schemas (fine-tuning jobs, lists, checkpoints). An
// answer that breaks its schema is passed on unchanged, logged as `provider_contract_violation` and
// counted; in strict mode (GATEWAY_PROVIDER_CONTRACT=strict) the client gets a 502 instead.
import * as validators from '../../generated/validators.js';
import type { Outcome } from '../router/outcome.ts';
import type { RequestContext } from '../server/context.ts';
import { GatewayError } from '../core/errors.ts';
import type { GatewayLogger } from '../core/log.ts';
import { sendGatewayError } from '../server/respond.ts';
import { describeFirstError, type GeneratedValidator } from '../core/validate.ts';
import { isSuccess, readAnswer, sendAnswer } from './forward.ts';
import type { ContractMode } from './settings.ts';

const VALIDATORS = validators as unknown as Record<string, GeneratedValidator>;

export class ProviderContract {
  readonly mode: ContractMode;
  readonly #logger: GatewayLogger;
  readonly #counts = new Map<string, number>();

  constructor(mode: ContractMode, logger: GatewayLogger) {
    this.mode = mode;
    this.#logger = logger;
  }

  /** Violations seen by this process, per operation (`listFineTuningJobs`, …). */
  get violations(): ReadonlyMap<string, number> {
    return this.#counts;
  }

  /** Checks a successful answer against `validatorName` before relaying it; other answers go through as they are. */
  async relay(ctx: RequestContext, outcome: Outcome, validatorName: string): Promise<void> {
    const answer = await readAnswer(ctx, outcome);
    if (answer === null) return;
    if (isSuccess(answer.status)) {
      const validate = VALIDATORS[validatorName];
      if (validate === undefined) throw new Error(`no generated validator named ${validatorName}`);
      const broken = answer.json === undefined ? { pointer: '', message: 'the body is not JSON.' } : validate(answer.json) ? null : describeFirstError(validate.errors);
      if (broken !== null) {
        const operation = ctx.route?.operationId ?? 'unknown';
        const count = (this.#counts.get(operation) ?? 0) + 1;
        this.#counts.set(operation, count);
        this.#logger.warn('provider_contract_violation', {
          code: 'provider_contract_violation', trace_id: ctx.traceId, operation, provider: outcome.provider, pointer: broken.pointer, message: broken.message, count, mode: this.mode,
        });
        if (this.mode === 'strict') {
          sendGatewayError(ctx.res, new GatewayError('provider_contract_violation', `The provider's answer breaks the ${operation} schema at ${broken.pointer || '/'}: ${broken.message}`, broken.pointer || null, { provider: outcome.provider }));
          return;
        }
      }
    }
    sendAnswer(ctx, answer);
  }
}
