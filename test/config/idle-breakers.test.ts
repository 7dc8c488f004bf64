// CFG_BREAKER_NEVER_SKIPS (compiler/config/idle-breakers.ts): a cb_config acts only on leaves that a
// fallback or loadbalance strategy of two or more targets chooses among, somewhere above them; the
// warning names exactly the cb_configs that cover no such leaf.
import { expect, it } from 'vitest';
import { idleBreakerPointers } from '../../compiler/config/idle-breakers.ts';

const CB = { failure_threshold: 2, cooldown_interval: 30_000 };
const leaf = (name: string, extra: Record<string, unknown> = {}) => ({ name, provider: 'vendor', api_key: 'k', ...extra });
const strategy = (mode: string, targets: unknown[], extra: Record<string, unknown> = {}) => ({
  strategy: mode === 'conditional' ? { mode, conditions: [{ query: { 'metadata.a': 'x' }, then: 'a' }], default: 'a' } : { mode },
  targets,
  ...extra,
});

it('warns where nothing chooses among the covered targets', () => {
  expect(idleBreakerPointers({ ...leaf('a'), cb_config: CB })).toEqual(['/cb_config']);
  expect(idleBreakerPointers(strategy('single', [leaf('a')], { cb_config: CB }))).toEqual(['/cb_config']);
  expect(idleBreakerPointers(strategy('fallback', [leaf('a')], { cb_config: CB }))).toEqual(['/cb_config']);
  expect(idleBreakerPointers(strategy('conditional', [leaf('a'), leaf('b')], { cb_config: CB }))).toEqual(['/cb_config']);
  expect(idleBreakerPointers(strategy('conditional', [strategy('single', [leaf('a')], { name: 'a' })], { cb_config: CB }))).toEqual(['/cb_config']);
  // A target's own cb_config under a branch nothing chooses among.
  expect(idleBreakerPointers(strategy('conditional', [leaf('a', { cb_config: CB }), leaf('b')]))).toEqual(['/targets/0/cb_config']);
});

it('is silent where a fallback or loadbalance of two or more targets chooses, at any depth above', () => {
  expect(idleBreakerPointers(strategy('fallback', [leaf('a'), leaf('b')], { cb_config: CB }))).toEqual([]);
  expect(idleBreakerPointers(strategy('loadbalance', [leaf('a', { cb_config: CB }), leaf('b')]))).toEqual([]);
  // The fallback skips the conditional subtree once all its leaves are open.
  expect(idleBreakerPointers(strategy('fallback', [strategy('conditional', [leaf('a'), leaf('b')], { cb_config: CB }), leaf('c')]))).toEqual([]);
  // Inherited down through a single to a fallback's leaves.
  expect(idleBreakerPointers(strategy('single', [strategy('fallback', [leaf('a'), leaf('b')])], { cb_config: CB }))).toEqual([]);
  // A child's own cb_config replaces its parent's for its leaves; each is judged on the leaves it covers.
  expect(idleBreakerPointers(strategy('fallback', [leaf('x'), strategy('single', [leaf('z')], { cb_config: CB })], { cb_config: CB }))).toEqual([]);
  // The root's covers no leaf a choice reaches once every chosen leaf has its own.
  expect(idleBreakerPointers(strategy('conditional', [strategy('fallback', [leaf('a', { cb_config: CB }), leaf('b', { cb_config: CB })], { name: 'a' })], { cb_config: CB }))).toEqual(['/cb_config']);
  expect(idleBreakerPointers({ provider: 'vendor', api_key: 'k' })).toEqual([]);
});
