// A simulation report in words, for the terminal: one line per try, then the answer and the
// headers the client would see.
import type { SimulatedAttempt } from '../../generated/types.ts';
import type { SimulationReport } from './simulate.ts';

export function reportText(report: SimulationReport): string {
  const lines = [`simulate ${report.config_id}: POST ${report.path} (seed ${report.seed})`, ''];
  if (report.attempts.length === 0) lines.push('  no provider would be called');
  report.attempts.forEach((attempt, i) => lines.push(`  ${i + 1}. ${attemptLine(attempt)}`));
  const answer = report.answer;
  const error = answer.error === null ? '' : ` ${answer.error.code}: ${answer.error.message}`;
  const from = report.attempts.length === 0 ? 'from the gateway' : `from ${answer.target}${answer.provider === '' ? '' : ` (${answer.provider})`}`;
  lines.push('', `answer: ${answer.status} ${from} after ${answer.retries} ${answer.retries === 1 ? 'retry' : 'retries'}${error}`, 'headers:');
  for (const [name, value] of Object.entries(report.headers)) lines.push(`  ${name}: ${value}`);
  if (report.not_simulated.length > 0) {
    lines.push('not simulated:');
    for (const note of report.not_simulated) lines.push(`  ${note}`);
  }
  return `${lines.join('\n')}\n`;
}

function attemptLine(attempt: SimulatedAttempt): string {
  const who = [attempt.target, attempt.name === null ? null : JSON.stringify(attempt.name), attempt.provider || '(no provider)', attempt.model === null ? null : `model ${attempt.model}`];
  const result = attempt.result.error === null ? String(attempt.result.status) : `${attempt.result.status} ${attempt.result.error}`;
  const then = attempt.then === 'retry' ? `retry after ${attempt.backoff_ms} ms` : attempt.then === 'fallback' ? 'fall back to the next target' : 'answer';
  return `${who.filter((part) => part !== null).join('  ')}  → ${result}, ${then}`;
}
