// The queue of scripted behaviours: each request takes the first matching step with uses left.
import type { ScriptStep } from './types.ts';

interface QueuedStep {
  step: ScriptStep;
  left: number;
}

export class ScriptQueue {
  #steps: QueuedStep[] = [];

  add(steps: ScriptStep[]): void {
    for (const step of steps) {
      const times = step.times ?? 1;
      if (!Number.isInteger(times) || times < 1) throw new RangeError(`script step times must be a positive integer, got ${times}`);
      this.#steps.push({ step, left: times });
    }
  }

  take(method: string, path: string): ScriptStep | null {
    for (let i = 0; i < this.#steps.length; i++) {
      const queued = this.#steps[i];
      const { step } = queued;
      if (step.path !== undefined && step.path !== path) continue;
      if (step.method !== undefined && step.method.toUpperCase() !== method) continue;
      queued.left -= 1;
      if (queued.left === 0) this.#steps.splice(i, 1);
      return step;
    }
    return null;
  }

  clear(): void {
    this.#steps = [];
  }
}
