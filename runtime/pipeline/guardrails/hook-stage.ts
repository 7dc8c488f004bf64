// The hook stages (ARCHITECTURE §5 "Hooks and guardrails"). The request-phase stage runs the root's
// before-request hooks and input guardrails (a denial answers 446 and the provider is never called),
// then routes, then finishes the answer: 446 with hook_results for a denial, 246 when a hook failed
// without denying, hook_results in JSON answers unless the answering target is strict about vendor
// compliance, and the results and feedback in the log record. The attempt-phase stage runs, per try,
// a target's own before hooks (when they differ from the root's) and the after-request hooks and
// output guardrails on that try's answer, so a denied answer is a failed attempt a fallback moves past;
// where those can rewrite the model's signed reasoning, it keeps what they rewrote and puts the
// original back into a later turn that sends it back (reasoning/).
import { GatewayError } from '../../core/errors.ts';
import { hookResultsWire } from '../../core/hook-results-wire.ts';
import type { PlanLeaf, PlanNode, PlanNodeBase, RoutePlan } from '../../core/plan.ts';
import type { CheckTools, HookPhase } from './check.ts';
import type { EndpointKind } from '../../providers/types.ts';
import { errorOutcome, type Outcome } from '../../router/outcome.ts';
import type { UpstreamResponse } from '../../upstream/types.ts';
import { bufferedResponse, jsonResponse, unreadAnswerError, withMember } from '../answers.ts';
import { HOOK_FAILED_STATUS } from '../../core/gateway-statuses.ts';
import { attachTap } from '../body-tap.ts';
import type { Exchange } from '../exchange.ts';
import { requestedModel } from '../request-model.ts';
import { ownAnswerReading, streamsByPath } from '../metered-pass-through.ts';
import { gatewayAnswer, isJsonType, ownAnswer, ownFraming, textlessAnswer, PASSED_ON_ANSWER, passedOn, type ReadAnswer, requestBodyOf } from './phase-bodies.ts';
import type { Services } from '../services.ts';
import type { Stage, StageFn } from '../stage.ts';
import { HookRun } from './hook-run.ts';
import { hookSpecs } from './hook-spec.ts';
import { sameHooks } from '../../../compiler/config/same-hooks.ts';
import { errorEventStream } from './held-stream.ts';
import { rewrittenForm } from '../../core/form-body.ts';
import { boundaryOf } from '../../core/multipart.ts';
import { type PhaseContext, type PreparedHook, prepareHooks, runPhase, unjudgedPhase } from './run-hooks.ts';
import { poolSettings } from '../../upstream/pools.ts';
import { kept } from '../../core/memo.ts';
import { isJsonObject } from '../../core/json-object.ts';
import { putBackReasoning, rememberRewritten, sentBack } from './reasoning/put-back.ts';
import { isEventStreamType } from '../../core/event-stream-type.ts';

/** Endpoints whose answers after-request hooks judge: the ones with text. */
const JUDGED_ANSWERS: ReadonlySet<EndpointKind> = new Set(['chat', 'completions', 'embeddings']);
/** Audio operations whose answers are text the model wrote (a speech answer is audio, and not judged). */
const TRANSCRIBING: ReadonlySet<string | null> = new Set(['createTranscription', 'createTranslation']);

function judgesAnswer(x: Exchange): boolean {
  return JUDGED_ANSWERS.has(x.endpoint) || (x.endpoint === 'audio' && TRANSCRIBING.has(x.operationId));
}

export const hookStage: Stage = {
  name: 'hooks',
  phase: 'request',
  prepare(root, services, plan) {
    if (!anyHooks(root)) return null;
    const before = prepareHooks(hookSpecs(root, 'before'), services.checkTools);
    const strict = strictLeaves(root);
    const fn: StageFn = async (x, next) => {
      if (x.options.webSocket !== null) return errorOutcome(unjudgedSession(), '', '');
      const run = HookRun.start(x);
      if (before.length > 0 && !(await passesBefore(before, x, run, run.before, run.feedback))) {
        run.deniedIn = 'before';
        return finish(x, run, errorOutcome(new GatewayError('denied_by_guardrail'), '', ''), strict);
      }
      return finish(x, run, await next(x), strict);
    };
    return fn;
  },
};

export const attemptHookStage: Stage = {
  name: 'attempt-hooks',
  phase: 'attempt',
  prepare(node, services, plan) {
    const leaf = node as PlanLeaf;
    const before = sameHooks(leaf, plan.root, 'before') ? [] : preparedHooks(leaf, 'before', services.checkTools);
    const after = preparedHooks(leaf, 'after', services.checkTools);
    if (before.length === 0 && after.length === 0) {
      // A target without hooks in a route with some: its answer carries none of an earlier try's results.
      if (!anyHooks(plan.root)) return null;
      const reset: StageFn = (x, next) => {
        HookRun.of(x)?.newAttempt();
        return next(x);
      };
      return reset;
    }
    const waited = after.filter((h) => !h.spec.async);
    const later = after.filter((h) => h.spec.async);
    // A stream is held whole when an output check can deny it or change it; otherwise it flows and is judged at its end.
    const hold = waited.some((h) => h.spec.denyOnFail || h.spec.denyOnSuccess || h.hasTransform || h.checks.some((c) => c.id === 'default.webhook'));
    const fn: StageFn = async (x, next) => {
      const run = HookRun.of(x) ?? HookRun.start(x);
      run.newAttempt();
      if (before.length > 0 && !(await passesBefore(before, x, run, run.attemptBefore, run.attemptFeedback))) {
        run.deniedIn = 'before';
        return errorOutcome(new GatewayError('denied_by_guardrail'), leaf.path, leaf.provider ?? '');
      }
      // Output checks may have rewritten the reasoning this request sends back: the provider gets its own words.
      const memory = after.length === 0 ? null : services.turns;
      const sent = memory === null ? null : await putBackReasoning(x, memory);
      let outcome: Outcome;
      try {
        outcome = await next(x);
      } finally {
        if (sent !== null) sentBack(x, sent);
      }
      const response = outcome.response;
      if (after.length === 0 || response === null || outcome.status < 200 || outcome.status >= 300) return outcome;
      const contentType = response.headers['content-type'];
      if (passedOn(x)) {
        // A family's own chat API is read in its dialect when its own family's target answered it.
        const provider = leaf.provider ?? '';
        const dialect = ownAnswerReading(x, provider);
        // Images (megabytes of base64) go on unjudged and unparsed, as the images endpoint's answers do.
        if (dialect === 'images') return outcome;
        // A token count answers counts, cloud B's embeddings vectors: no text to judge (their request's text was judged before it went).
        if (dialect === 'counts' || dialect === 'vectors') return judgeHeld(x, run, outcome, response, waited, later, textlessAnswer);
        // Another model's invoke in a format the gateway does not read: judged as the rest of the pass-through.
        if (dialect === null) return judgePassedOn(x, run, outcome, response, waited, later);
        const framing = ownFraming(x, contentType);
        if (framing !== null && !hold) return { ...outcome, response: judgedAtEnd(x, run, response, after, (bytes) => ownAnswer(dialect, framing, bytes)) };
        const remember = memory === null ? undefined : (answer: unknown, judged: unknown) => rememberRewritten(memory, x, dialect, answer, judged);
        return judgeHeld(x, run, outcome, response, waited, later, (bytes) => ownAnswer(dialect, framing, bytes), remember);
      }
      if (!judgesAnswer(x)) return outcome;
      const stream = isEventStreamType(contentType);
      if (stream && !hold) return { ...outcome, response: judgedAtEnd(x, run, response, after, (bytes) => gatewayAnswer(x, response, bytes, true)) };
      return judgeHeld(x, run, outcome, response, waited, later, (bytes) => gatewayAnswer(x, response, bytes, stream));
    };
    return fn;
  },
};

/**
 * Prepared hooks by the lists they came from. Leaves share the lists they inherit (the emitted router
 * declares each once), and preparing is work per check (a `contains` list's automaton, a pattern): a
 * root's output guardrails over a thousand targets were prepared a thousand times, seconds of the
 * serving thread for one inline config.
 */
const preparedByList = new WeakMap<CheckTools, WeakMap<readonly unknown[], WeakMap<readonly unknown[], PreparedHook[]>>>();

function preparedHooks(node: PlanNodeBase, phase: HookPhase, tools: CheckTools): PreparedHook[] {
  const hooks = phase === 'before' ? node.beforeRequestHooks : node.afterRequestHooks;
  const guardrails = phase === 'before' ? node.inputGuardrails : node.outputGuardrails;
  const byHooks = kept(preparedByList, tools, () => new WeakMap<readonly unknown[], WeakMap<readonly unknown[], PreparedHook[]>>());
  const byGuardrails = kept(byHooks, hooks, () => new WeakMap<readonly unknown[], PreparedHook[]>());
  return kept(byGuardrails, guardrails, () => prepareHooks(hookSpecs(node, phase), tools));
}

/** Runs before-request hooks on the request; false when one denied. A rewrite (redaction, a webhook's body) replaces what goes upstream. */
async function passesBefore(hooks: readonly PreparedHook[], x: Exchange, run: HookRun, into: HookRun['before'], feedback: HookRun['feedback']): Promise<boolean> {
  if (x.rawBody !== null) await x.json();
  const io = requestBodyOf(x);
  const ctx = contextOf(x, run);
  const waited = hooks.filter((h) => !h.spec.async);
  const later = hooks.filter((h) => h.spec.async);
  if (later.length > 0) {
    const params = x.params;
    run.track(Promise.resolve(runPhase(later, 'before', ctx, params, io, false)).then((phase) => run.add(phase, into, feedback)));
  }
  if (waited.length === 0) return true;
  const phase = await runPhase(waited, 'before', ctx, x.params, io);
  run.add(phase, into, feedback);
  if (phase.denied) return false;
  if (phase.body !== x.params) {
    x.params = phase.body;
    // A form (audio, image edits) stays a form: its fields rewritten, its files kept.
    const boundary = boundaryOf(x.options.passedHeaders['content-type']);
    x.rawBody = boundary === null || x.rawBody === null ? Buffer.from(JSON.stringify(phase.body)) : rewrittenForm(x.rawBody, boundary, phase.body as Record<string, unknown>);
  }
  return true;
}

/**
 * A JSON answer, or a stream held whole: judged before the client sees it. `remember` keeps what the
 * checks rewrote of its signed reasoning, before the client can send it back.
 */
async function judgeHeld(x: Exchange, run: HookRun, outcome: Outcome, response: UpstreamResponse, waited: readonly PreparedHook[], later: readonly PreparedHook[], read: (bytes: Buffer) => ReadAnswer, remember?: (answer: unknown, judged: unknown) => Promise<void>): Promise<Outcome> {
  let bytes: Buffer;
  try {
    bytes = await response.readAll();
  } catch (error) {
    return unreadOutcome(x, outcome, error);
  }
  const { answer, io, bytesOf, json } = read(bytes);
  const ctx = contextOf(x, run);
  let judged = answer;
  if (waited.length > 0) {
    const phase = await runPhase(waited, 'after', ctx, answer, io);
    run.add(phase, run.after, run.attemptFeedback);
    if (phase.denied) {
      run.deniedIn = 'after';
      return errorOutcome(new GatewayError('denied_by_guardrail'), outcome.leafPath, outcome.provider);
    }
    judged = phase.body;
    if (remember !== undefined && judged !== answer) await remember(answer, judged);
  }
  if (later.length > 0) run.track(Promise.resolve(runPhase(later, 'after', ctx, judged, io, false)).then((phase) => run.add(phase, run.after, run.attemptFeedback)));
  const body = judged === answer ? bytes : bytesOf(judged);
  // The upstream answer's header object is this answer's own (the server adds its headers to it too).
  const headers = response.headers;
  if (headers['content-length'] !== undefined) headers['content-length'] = String(body.length);
  const kept = bufferedResponse(response.status, headers, body);
  if (json && isJsonObject(judged)) run.answer = { response: kept, bytes: body };
  return { ...outcome, response: kept };
}

/**
 * A pass-through answer, judged unread (PASSED_ON_ANSWER, the answer `null`): its bytes go on as the
 * provider sent them unless a hook denied it, or a webhook answered `transformedData`, which is the
 * answer then, as on any other endpoint.
 */
async function judgePassedOn(x: Exchange, run: HookRun, outcome: Outcome, response: UpstreamResponse, waited: readonly PreparedHook[], later: readonly PreparedHook[]): Promise<Outcome> {
  const ctx = contextOf(x, run);
  if (later.length > 0) run.track(Promise.resolve(runPhase(later, 'after', ctx, null, PASSED_ON_ANSWER, false)).then((phase) => run.add(phase, run.after, run.attemptFeedback)));
  if (waited.length === 0) return outcome;
  const phase = await runPhase(waited, 'after', ctx, null, PASSED_ON_ANSWER);
  run.add(phase, run.after, run.attemptFeedback);
  if (phase.denied) {
    response.discard();
    run.deniedIn = 'after';
    return errorOutcome(new GatewayError('denied_by_guardrail'), outcome.leafPath, outcome.provider);
  }
  if (phase.body === null) return outcome;
  response.discard();
  const bytes = Buffer.from(JSON.stringify(phase.body));
  const kept = bufferedResponse(response.status, { 'content-type': 'application/json', 'content-length': String(bytes.length) }, bytes);
  run.answer = { response: kept, bytes };
  return { ...outcome, response: kept };
}

/**
 * A stream that flows to the client as it comes; its hooks judge it once it ended (they can only
 * report). What they judge is kept as it goes by, up to the most the gateway holds of a provider's
 * answer (GATEWAY_UPSTREAM_MAX_BYTES): a longer stream flows on whole, its checks errored as not judged.
 */
function judgedAtEnd(x: Exchange, run: HookRun, response: UpstreamResponse, hooks: readonly PreparedHook[], read: (bytes: Buffer) => ReadAnswer): UpstreamResponse {
  const ctx = contextOf(x, run);
  const limit = poolSettings().maxBufferedBytes;
  const chunks: Buffer[] = [];
  let kept = 0;
  let tooLong = false;
  const keep = (chunk: Buffer): void => {
    if (tooLong) return;
    kept += chunk.length;
    if (kept <= limit) chunks.push(chunk);
    else {
      tooLong = true;
      chunks.length = 0;
    }
  };
  let settle!: () => void;
  run.track(new Promise<void>((resolve) => (settle = resolve)));
  const judge = (): void => {
    if (tooLong) {
      const reason = `the streamed answer is longer than the ${limit} bytes the gateway holds to judge it (GATEWAY_UPSTREAM_MAX_BYTES); not judged`;
      run.add(unjudgedPhase(hooks, reason, null), run.after, run.attemptFeedback);
      settle();
      return;
    }
    const { answer, io } = read(Buffer.concat(chunks));
    chunks.length = 0;
    void Promise.resolve(runPhase(hooks, 'after', ctx, answer, io, false)).then((phase) => run.add(phase, run.after, run.attemptFeedback)).finally(settle);
  };
  return {
    status: response.status,
    headers: response.headers,
    forwardTo(res) {
      // The bytes the client gets, from the response's own writes (no second read of the upstream body).
      // A cut answer is settled by forwardTo's rejection below, not by the tap.
      attachTap(res, { write: (chunk) => keep(typeof chunk === 'string' ? Buffer.from(chunk) : chunk), end() {}, brokeOff() {} });
      return response.forwardTo(res).then(judge, (error: unknown) => {
        settle();
        throw error;
      });
    },
    readAll() {
      return response.readAll().then((body) => {
        keep(body);
        judge();
        return body;
      }, (error: unknown) => {
        settle();
        throw error;
      });
    },
    discard() {
      settle();
      response.discard();
    },
  };
}

/** The route's answer, finished: denial body, 246, hook_results, and the record. */
async function finish(x: Exchange, run: HookRun, outcome: Outcome, strict: ReadonlySet<string>): Promise<Outcome> {
  run.record(x.record);
  const results = hookResultsWire(run.results());
  if (outcome.error?.code === 'denied_by_guardrail' && run.deniedIn !== null) {
    x.record.errorCode = 'denied_by_guardrail';
    const body = { ...outcome.error.toBody(), hook_results: results };
    // `stream` is a JSON body's true, or a form's (a transcription's) "true".
    const asked = (x.params as { stream?: unknown } | undefined)?.stream;
    const streamed = run.deniedIn === 'after' && (asked === true || asked === 'true') && !streamsByPath(x);
    // A held stream that was denied is answered as a stream: one error event, which the vendor SDKs' stream readers throw.
    const response = streamed ? bufferedResponse(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }, errorEventStream(body)) : jsonResponse(outcome.error.status, body);
    return { ...outcome, error: null, response };
  }
  const response = outcome.response;
  if (response === null || outcome.status < 200 || outcome.status >= 300) return outcome;
  const status = run.failed ? HOOK_FAILED_STATUS : response.status;
  const json = isJsonType(response.headers['content-type']);
  if (!json || strict.has(outcome.leafPath)) return status === response.status ? outcome : { ...outcome, status, response: withStatus(response, status) };
  // The answer's bytes as the output hooks kept them, or read now; hook_results go in without re-serialising it.
  let bytes: Buffer;
  try {
    bytes = run.answer !== null && run.answer.response === response ? run.answer.bytes : await response.readAll();
  } catch (error) {
    // An answer no stage read whole before (a transcription's).
    return unreadOutcome(x, outcome, error);
  }
  const body = withMember(bytes, 'hook_results', results) ?? bytes;
  const headers = response.headers;
  if (headers['content-length'] !== undefined || body !== bytes) headers['content-length'] = String(body.length);
  return { ...outcome, status, response: bufferedResponse(status, headers, body) };
}

/** An answer a stage could not read whole: the provider's failure, unless its client left (the server records that as such). */
function unreadOutcome(x: Exchange, outcome: Outcome, error: unknown): Outcome {
  if (x.signal.aborted) throw error;
  return errorOutcome(unreadAnswerError(error), outcome.leafPath, outcome.provider);
}

function withStatus(response: UpstreamResponse, status: number): UpstreamResponse {
  return { status, headers: response.headers, forwardTo: (res) => response.forwardTo(res), readAll: () => response.readAll(), discard: () => response.discard() };
}

function contextOf(x: Exchange, run: HookRun): PhaseContext {
  return {
    endpoint: x.endpoint,
    // The model the request names: its body's, else (a generateContent or converse pass-through call) its path's.
    model: requestedModel(x),
    metadata: x.options.metadata,
    headers: x.options.checkHeaders,
    request: x.params,
    signal: x.signal,
    budget: run.budget,
  } as PhaseContext;
}

/** A WebSocket session's frames (a realtime API's events and audio) are no body a check reads: refused, never let through unjudged. */
function unjudgedSession(): GatewayError {
  return new GatewayError('endpoint_not_supported', 'This route has hooks or guardrails, and they cannot judge a WebSocket session (its frames are a realtime API\'s events and audio, not a request or an answer body): the connection is refused rather than let through unjudged.', 'upgrade');
}

function anyHooks(node: PlanNode): boolean {
  if (node.beforeRequestHooks.length + node.afterRequestHooks.length + node.inputGuardrails.length + node.outputGuardrails.length > 0) return true;
  return node.kind === 'strategy' && node.targets.some(anyHooks);
}

function strictLeaves(node: PlanNode, into = new Set<string>()): Set<string> {
  if (node.kind === 'leaf') {
    if (node.strictVendorCompliance) into.add(node.path);
  } else node.targets.forEach((child) => strictLeaves(child, into));
  return into;
}

/** Header names the route's checks read (a jwt check's headerKey), lower-cased: the server copies these out for them. */
export function headersReadByChecks(plan: RoutePlan): string[] {
  const names = new Set<string>();
  const walk = (node: PlanNode): void => {
    for (const phase of ['before', 'after'] as const) {
      for (const spec of hookSpecs(node, phase)) for (const check of spec.checks) if (check.id === 'default.jwt' && typeof check.parameters.headerKey === 'string') names.add(check.parameters.headerKey.toLowerCase());
    }
    if (node.kind === 'strategy') node.targets.forEach(walk);
  };
  walk(plan.root);
  return [...names];
}
