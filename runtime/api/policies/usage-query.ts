// The query of the two policy usage listings: `group.<key>=<value>` filters, each key one the policy
// groups by (another is refused: it could never match, and an empty page would read as "nothing
// used"), and the paging of every list over what the filters keep.
import { GatewayError } from '../../core/errors.ts';
import type { GroupFilter } from '../../pipeline/limits/counters.ts';
import { groupValues } from '../../pipeline/limits/policy-matcher.ts';
import type { PageRequest } from '../../store/page.ts';
import { pageOf } from '../http.ts';

const GROUP_PREFIX = 'group.';

export function usageQuery(query: Readonly<Record<string, unknown>>, groupBy: readonly string[]): { page: PageRequest; keep: GroupFilter } {
  const wanted: Array<[string, string]> = [];
  for (const name in query) {
    if (!name.startsWith(GROUP_PREFIX)) continue;
    const key = name.slice(GROUP_PREFIX.length);
    if (!groupBy.includes(key)) {
      const by = groupBy.length === 0 ? 'nothing (one group for every request)' : groupBy.join(', ');
      throw new GatewayError('invalid_query', `Invalid query string: ${name} names no group_by key of this policy, which groups by ${by}.`, `/${name}`);
    }
    wanted.push([key, String(query[name])]);
  }
  const keep: GroupFilter = wanted.length === 0 ? null : (group) => {
    const values = groupValues(groupBy, group);
    return wanted.every(([key, value]) => values[key] === value);
  };
  return { page: pageOf(query), keep };
}
