// What Go judged, as the components that show it take it in the specs:
// the tool list and every rule check Go recorded
// (frontend/src/lib/replay/judgements.json, written by
// go test . -run TestWindowJudgements -update).
import { builtinTools, recordedRuleCheck } from '../replay/machine';
import judgements from '../replay/judgements.json';
import { limitsKey } from '../safety/rules';
import type { Rule, RuleCheck } from '../types';

/** Go's checks of the recorded rules, by limitsKey. */
export const ruleChecks: Readonly<Record<string, RuleCheck>> = Object.fromEntries(judgements.rules.map((r) => [limitsKey(r.rule as Rule), r.check]));

/** Asks the recording, as App.CheckRule would be asked; a rule Go was not asked about fails the spec and says where to add it. */
export async function checkRule(r: Rule): Promise<RuleCheck> {
  const c = recordedRuleCheck(r);
  if (!c) throw new Error(`Go was not asked about the rule ${JSON.stringify(r)}: add it to judgedRules in window_judgements_test.go`);
  return c;
}

/** The props of a component that shows rules and tools. */
export const judged = { tools: builtinTools, checks: ruleChecks, check: checkRule };
