// Fields shared by both policy kinds (SPEC §2.8, §4.11): who the policy belongs to and which requests
// it counts. Enforcement (a later issue) matches `conditions` against a request's attributes and
// keeps one counter per distinct value of the `groupBy` keys.

export interface PolicyCondition {
  key: string;
  value: string;
}

export interface PolicyGroupBy {
  key: string;
}

export interface PolicyOwner {
  workspaceId: string;
  organisationId: string;
}
